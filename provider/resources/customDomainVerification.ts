// CustomDomainVerification: calls verify and polls with capped, jittered backoff until the custom
// domain is ACTIVE. On timeout it fails naming each record that is missing or wrong (expected and
// found) and each conflicting record, which must be removed; the domain stays, so the next `up`
// waits again. Its read re-checks DNS, so a domain that is not ACTIVE shows as a change.
import { z } from "zod";
import { PermissionDeniedError } from "../client";
import type { V1CustomDomain } from "../api/domains";
import { customDomainApi } from "../api/endpoints/domains";
import { dnsTargetOutput, findCustomDomain, type TargetRecordOutput, toOutputs as domainOutputs } from "./customDomain";
import { checkWith, type Context, defineResource, findOrUndefined, ResourceInitError, splitFirst, verificationDiff } from "./framework";
import { duration, id } from "./rules";
import { formatDuration, parseDuration, pollUntil } from "./waiter";

// ---- schemas ----
export const customDomainVerificationInputs = z.object({
  domainId: id("The custom domain to verify. Changing it replaces the verification."),
  timeout: duration("How long to wait for the domain to become ACTIVE, e.g. \"90s\" or \"15m\". Default 15m.").optional(),
});
export type CustomDomainVerificationInputs = z.infer<typeof customDomainVerificationInputs>;

export const customDomainVerificationOutputs = z.object({
  domainId: z.string().describe("The verified custom domain."),
  serviceId: z.string().describe("The service the domain serves."),
  domain: z.string().describe("The domain."),
  status: z.string().describe("Status as of the last check: ACTIVE once done."),
  dnsTarget: dnsTargetOutput,
  lastCheck: z.string().nullable().describe("What the last DNS check found, against what was expected."),
  verifiedAt: z.string().nullable().describe("When the domain became ACTIVE."),
  timeout: z.string().nullable().describe("The wait limit used."),
});
export type CustomDomainVerificationOutputs = z.infer<typeof customDomainVerificationOutputs>;

export const DEFAULT_TIMEOUT = "15m";

export const CustomDomainVerification = defineResource<CustomDomainVerificationInputs, CustomDomainVerificationOutputs>({
  token: "cloudplatform:index:CustomDomainVerification",
  description: "Verifies a custom domain: re-checks DNS and waits (capped, jittered backoff) until it is ACTIVE; fails naming each missing, wrong or conflicting record.",
  inputs: customDomainVerificationInputs,
  outputs: customDomainVerificationOutputs,
  stableOutputs: ["serviceId", "domain"],
  importId: { format: "<serviceId>/<domainId>", note: "The resource's id in state is the custom domain's id." },
  inputsOf,

  // ---- check ----
  check: (_olds, news) => checkWith(customDomainVerificationInputs, news),

  // ---- diff ----
  // A domain that is not ACTIVE is verified again; the timeout alone changes nothing.
  diff: (_id, olds, news) => verificationDiff(olds, news, ["domainId"], olds.status === "ACTIVE"),

  // ---- create ----
  async create(ctx, inputs) {
    return { id: inputs.domainId, outs: await waitActive(ctx, inputs) };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    const [fromId, idDomain] = splitFirst(id);
    const domainId = olds.domainId || idDomain;
    const d = await recheck(ctx, domainId, olds.serviceId || fromId);
    if (!d) return {};
    const outs = toOutputs(d, olds.serviceId || fromId, olds.timeout ?? null);
    return { id: domainId, props: outs, inputs: inputsOf(outs) };
  },

  // ---- update ----
  async update(ctx, _id, _olds, news) {
    return { outs: await waitActive(ctx, news) };
  },
});

// ---- verify and wait ----
/** Re-checks DNS now; a key that may not call verify (read-only) falls back to the service's list. */
async function recheck(ctx: Context, domainId: string, serviceId: string | undefined): Promise<V1CustomDomain | undefined> {
  try {
    return await findOrUndefined(() => customDomainApi.verify(ctx.client, domainId));
  } catch (err) {
    if (err instanceof PermissionDeniedError && serviceId) return findCustomDomain(ctx, serviceId, domainId, { fresh: true });
    throw err;
  }
}

async function waitActive(ctx: Context, inputs: CustomDomainVerificationInputs): Promise<CustomDomainVerificationOutputs> {
  const timeoutMs = parseDuration(inputs.timeout ?? DEFAULT_TIMEOUT);
  const { value: d } = await pollUntil(
    async () => {
      const d = await customDomainApi.verify(ctx.client, inputs.domainId);
      if (d.status === "ACTIVE") return { done: true as const, value: d };
      return { done: false as const, value: d, progress: `custom domain ${d.domain}: ${d.status}; last check: ${d.lastCheck ?? "none yet"}` };
    },
    { timeoutMs, log: (m) => ctx.log(m) },
  );
  const outs = toOutputs(d, undefined, inputs.timeout ?? null);
  if (d.status === "ACTIVE") {
    ctx.log(`custom domain ${outs.domain}: ACTIVE; the service redeploys to serve it`);
    return outs;
  }
  throw new ResourceInitError(failureMessage(outs, timeoutMs), inputs.domainId, outs);
}

// ---- the failure message ----
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** What the last check found for a record, from lastCheck ("TYPE name: expected X; found Y"). */
export function foundFor(r: TargetRecordOutput, lastCheck: string | null): string | undefined {
  if (!lastCheck) return undefined;
  const m = new RegExp(`${escape(r.type)} ${escape(r.fqdn)}\\.?: expected [^;]*; found (.*?)(; remove each conflicting record)?$`, "i").exec(lastCheck);
  return m?.[1];
}

const where = (c: TargetRecordOutput) =>
  c.zoneId ? `in platform zone ${c.zoneId}${c.id ? `, record ${c.id}` : ""}` : "in public DNS, at the domain's DNS host";

/** Names each record that is missing or wrong, with what was expected and found, and each conflict. */
export function failureMessage(o: CustomDomainVerificationOutputs, timedOutAfterMs: number): string {
  const head = `custom domain ${o.domain} is not ACTIVE after ${formatDuration(timedOutAfterMs)} (status ${o.status})`;
  const lines: string[] = [];
  for (const r of o.dnsTarget.records) {
    const found = foundFor(r, o.lastCheck);
    if (found !== undefined && /^it\b/.test(found)) continue;
    const what = found === undefined ? (o.lastCheck ? `last check: ${o.lastCheck}` : "not confirmed yet") : `found ${found}`;
    lines.push(`  - missing or wrong: ${r.type} ${r.fqdn}: expected "${r.content}"; ${what}`);
  }
  for (const c of o.dnsTarget.conflicts) {
    lines.push(`  - conflicting: ${c.type} ${c.fqdn} "${c.content}" (${where(c)}): remove it`);
  }
  if (!lines.length) return `${head}. Last check: ${o.lastCheck ?? "none"}.`;
  // Refresh re-reads the domain's DNS target, so a record held back by a conflict is published next time.
  return `${head}:\n${lines.join("\n")}\nPublish the expected records exactly as shown and remove the conflicting ones, then run \`pulumi up --refresh\`.`;
}

// ---- mappers ----
function toOutputs(d: V1CustomDomain, serviceId: string | undefined, timeout: string | null): CustomDomainVerificationOutputs {
  const o = domainOutputs(d, serviceId ?? "");
  return {
    domainId: d.id,
    serviceId: o.serviceId,
    domain: o.domain,
    status: o.status,
    dnsTarget: o.dnsTarget,
    lastCheck: o.lastCheck,
    verifiedAt: o.verifiedAt,
    timeout,
  };
}

/** The inputs the outputs stand for (what read reports). */
function inputsOf(o: CustomDomainVerificationOutputs): CustomDomainVerificationInputs {
  return ({ domainId: o.domainId, ...(o.timeout ? { timeout: o.timeout } : {}) });
}
