// MailDomainVerification: calls verify and polls with capped, jittered backoff until the domain is
// VERIFIED. On timeout, or when the domain is BROKEN with nothing still propagating, it fails with
// a message naming every failing record. Its read re-checks DNS, so a domain that stopped being
// verified shows as drift on refresh and the next `up` verifies it again.
import { z } from "zod";
import { PermissionDeniedError } from "../client";
import { mailDomainApi } from "../api/endpoints/mail";
import type { V1MailDomainDetail } from "../api/mail";
import { checkWith, type Context, defineResource, findOrUndefined, ResourceInitError, splitFirst, verificationDiff } from "./framework";
import { findMailDomain, mailRecordOutput, type MailRecordOutput, recordOutputs } from "./mailDomain";
import { duration, id } from "./rules";
import { formatDuration, limitNote, parseDuration, pollUntil, waitBudgetMs } from "./waiter";

// ---- schemas ----
export const mailDomainVerificationInputs = z.object({
  domainId: id("The mail domain to verify. Changing it replaces the verification."),
  timeout: duration("How long to wait for the domain to verify, e.g. \"90s\" or \"15m\". Default 15m.").optional(),
  workspaceId: id("Workspace of the domain. Defaults to cloudplatform:workspaceId, or the only workspace the key reaches.").optional(),
});
export type MailDomainVerificationInputs = z.infer<typeof mailDomainVerificationInputs>;

export const mailDomainVerificationOutputs = z.object({
  domainId: z.string().describe("The verified domain."),
  workspaceId: z.string().describe("Workspace of the domain."),
  name: z.string().describe("The sending domain."),
  status: z.string().describe("Status as of the last check: VERIFIED once done."),
  propagating: z.boolean().nullable().describe("True when the records are right but not yet visible everywhere."),
  records: z.array(mailRecordOutput).describe("The records with the last check's verified flag and problem."),
  failingRecords: z.array(z.string()).nullable().describe("Records the last check found failing."),
  dailyQuota: z.number().nullable().describe("Messages per day."),
  alignmentWarning: z.string().nullable().describe("Set when the domain's DMARC policy would break signing."),
  lastCheckedAt: z.string().nullable().describe("When DNS was last checked."),
  verifiedAt: z.string().nullable().describe("When the domain was first verified."),
  timeout: z.string().nullable().describe("The wait limit used."),
});
export type MailDomainVerificationOutputs = z.infer<typeof mailDomainVerificationOutputs>;

export const DEFAULT_TIMEOUT = "15m";

export const MailDomainVerification = defineResource<MailDomainVerificationInputs, MailDomainVerificationOutputs>({
  token: "cloudplatform:index:MailDomainVerification",
  description: "Verifies a mail domain: re-checks DNS and waits (capped, jittered backoff) until it is VERIFIED; fails naming every failing record.",
  inputs: mailDomainVerificationInputs,
  outputs: mailDomainVerificationOutputs,
  stableOutputs: ["name"],
  importId: { format: "<workspaceId>/<domainId>", note: "A bare `<domainId>` is looked up in the configured workspace. The resource's id in state is the domain's id." },
  inputsOf,

  // ---- check ----
  check: (_olds, news) => checkWith(mailDomainVerificationInputs, news),

  // ---- diff ----
  // A domain that is not VERIFIED (any more) is verified again; the timeout alone changes nothing.
  diff: (_id, olds, news) => verificationDiff(olds, news, ["domainId", "workspaceId"], olds.status === "VERIFIED"),

  // ---- create ----
  async create(ctx, inputs) {
    return { id: inputs.domainId, outs: await waitVerified(ctx, inputs) };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    const [fromId, idDomain] = splitFirst(id);
    const domainId = olds.domainId || idDomain;
    const ws = olds.workspaceId || fromId || (await ctx.workspaceId());
    const detail = await recheck(ctx, ws, domainId);
    if (!detail) return {};
    const outs = toOutputs(detail, ws, domainId, olds.timeout ?? null);
    return { id: domainId, props: outs, inputs: inputsOf(outs) };
  },

  // ---- update ----
  async update(ctx, _id, _olds, news) {
    return { outs: await waitVerified(ctx, news) };
  },
});

// ---- verify and wait ----
/** Re-checks DNS now; a key that may not call verify (read-only, sandbox) falls back to a plain read. */
async function recheck(ctx: Context, workspaceId: string, domainId: string): Promise<V1MailDomainDetail | undefined> {
  try {
    return await findOrUndefined(() => mailDomainApi.verify(ctx.client, workspaceId, domainId));
  } catch (err) {
    if (err instanceof PermissionDeniedError) return findMailDomain(ctx, workspaceId, domainId);
    throw err;
  }
}

async function waitVerified(ctx: Context, inputs: MailDomainVerificationInputs): Promise<MailDomainVerificationOutputs> {
  const ws = inputs.workspaceId ?? (await ctx.workspaceId());
  const budget = waitBudgetMs(ctx, inputs.timeout, parseDuration(DEFAULT_TIMEOUT));
  const timeoutMs = budget.ms;
  const { value: d, timedOut } = await pollUntil(
    async () => {
      const detail = await mailDomainApi.verify(ctx.client, ws, inputs.domainId);
      const status = detail.domain.status;
      const settled = status === "VERIFIED" || status === "SUSPENDED" || (status === "BROKEN" && !detail.propagating);
      if (settled) return { done: true as const, value: detail };
      const waiting = failing(recordOutputs(detail.records), detail.domain.failingRecords).map((r) => `${r.type} ${r.fqdn}`);
      return {
        done: false as const,
        value: detail,
        progress: `mail domain ${detail.domain.name}: ${status}${detail.propagating ? " (records published, still propagating)" : ""}; waiting for ${waiting.join(", ") || "the next check"}`,
      };
    },
    // The records were written a moment ago (by VerifiedMailDomain, or just before): not visible yet.
    { timeoutMs, waitFirst: true, log: (m) => ctx.log(m) },
  );
  const outs = toOutputs(d, ws, inputs.domainId, inputs.timeout ?? null);
  if (d.domain.status === "VERIFIED") {
    ctx.log(`mail domain ${d.domain.name}: VERIFIED (daily quota ${d.domain.dailyQuota ?? "unknown"})`);
    if (d.alignmentWarning) ctx.log(`mail domain ${d.domain.name}: ${d.alignmentWarning}`);
    return outs;
  }
  const message = failureMessage(outs, timedOut ? timeoutMs : undefined, d.domain.suspendedReason ?? undefined, limitNote(budget));
  throw new ResourceInitError(message, inputs.domainId, outs);
}

/** Required records the last check failed; when the API gives no flags, those named in failingRecords. */
function failing(records: MailRecordOutput[], names: string[] | null | undefined): MailRecordOutput[] {
  const flagged = records.filter((r) => r.required && r.verified === false);
  if (flagged.length || !names?.length) return flagged;
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  return records.filter((r) => wanted.has((r.name ?? "").toLowerCase()) || wanted.has(r.fqdn) || wanted.has(`${r.type} ${r.fqdn}`.toLowerCase()));
}

/** Names every failing record: type, full name, expected value and what was found. */
export function failureMessage(o: MailDomainVerificationOutputs, timedOutAfterMs?: number, suspendedReason?: string, limit = ""): string {
  const head = timedOutAfterMs !== undefined
    ? `mail domain ${o.name} is not verified after ${formatDuration(timedOutAfterMs)}${limit} (status ${o.status}${o.propagating ? ", records still propagating" : ""})`
    : `mail domain ${o.name} is ${o.status}${suspendedReason ? `: ${suspendedReason}` : ""}`;
  const bad = failing(o.records, o.failingRecords);
  if (!bad.length) return `${head}.`;
  const lines = bad.map((r) =>
    `  - ${r.type} ${r.fqdn}${r.name ? ` (${r.name})` : ""}: expected ${r.priority !== null ? `priority ${r.priority}, ` : ""}"${r.value}"; ${r.problem ?? "not found or not matching"}`,
  );
  return `${head}. ${bad.length} failing record${bad.length === 1 ? "" : "s"}:\n${lines.join("\n")}\nPublish these records exactly as shown, then run \`pulumi up\` again.`;
}

// ---- mappers ----
function toOutputs(d: V1MailDomainDetail, workspaceId: string, domainId: string, timeout: string | null): MailDomainVerificationOutputs {
  return {
    domainId: d.domain.id ?? domainId,
    workspaceId,
    name: d.domain.name,
    status: d.domain.status,
    propagating: d.propagating ?? null,
    records: recordOutputs(d.records),
    failingRecords: d.domain.failingRecords ?? null,
    dailyQuota: d.domain.dailyQuota ?? null,
    alignmentWarning: d.alignmentWarning ?? null,
    lastCheckedAt: d.domain.lastCheckedAt ?? null,
    verifiedAt: d.domain.verifiedAt ?? null,
    timeout,
  };
}

/** The inputs the outputs stand for (what read reports). */
function inputsOf(o: MailDomainVerificationOutputs): MailDomainVerificationInputs {
  return ({ domainId: o.domainId, workspaceId: o.workspaceId, ...(o.timeout ? { timeout: o.timeout } : {}) });
}
