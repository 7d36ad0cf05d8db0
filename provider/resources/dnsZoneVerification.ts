// DnsZoneVerification: waits until a zone's ownership is proven and the zone is published
// (infrastructure routes §3: POST /v1/dns-zones/{zoneId}/verify). Deleting it changes nothing.
import { z } from "zod";
import type { V1DnsZone } from "../api/dns";
import { dnsZoneApi } from "../api/endpoints/dns";
import { findZone, PLATFORM_HINT } from "./dnsZone";
import { checkWith, type Context, defineResource, ResourceInitError, verificationDiff } from "./framework";
import { duration, id } from "./rules";
import { formatDuration, limitNote, parseDuration, pollUntil, waitBudgetMs } from "./waiter";

// ---- schemas ----
export const dnsZoneVerificationInputs = z.object({
  zoneId: id("The zone to verify. Changing it replaces the verification."),
  timeout: duration("How long to wait for proof of ownership, e.g. \"90s\" or \"15m\". Default 15m.").optional(),
});
export type DnsZoneVerificationInputs = z.infer<typeof dnsZoneVerificationInputs>;

export const dnsZoneVerificationOutputs = z.object({
  zoneId: z.string().describe("The verified zone."),
  name: z.string().describe("The zone's domain name."),
  published: z.boolean().describe("True once the zone is published."),
  verificationMethod: z.string().nullable().describe("How ownership was proven (NS, TXT, ...)."),
  verifiedAt: z.string().nullable().describe("When ownership was proven."),
  timeout: z.string().nullable().describe("The wait limit used."),
});
export type DnsZoneVerificationOutputs = z.infer<typeof dnsZoneVerificationOutputs>;

export const DEFAULT_TIMEOUT = "15m";

export const DnsZoneVerification = defineResource<DnsZoneVerificationInputs, DnsZoneVerificationOutputs>({
  token: "cloudplatform:index:DnsZoneVerification",
  description: "Waits until a DNS zone's ownership is proven (nameservers or the TXT verificationRecord) and the zone is published.",
  inputs: dnsZoneVerificationInputs,
  outputs: dnsZoneVerificationOutputs,
  stableOutputs: ["name"],
  importId: { format: "<zoneId>", note: "The zone is looked up in the configured workspace." },
  inputsOf: (o) => compactInputs(o),

  // ---- check ----
  check: (_olds, news) => checkWith(dnsZoneVerificationInputs, news),

  // ---- diff ----
  // A zone that is not published (any more) is verified again; the timeout alone changes nothing.
  diff: (_id, olds, news) => verificationDiff(olds, news, ["zoneId"], olds.published === true),

  // ---- create ----
  async create(ctx, inputs) {
    const outs = await waitPublished(ctx, inputs);
    return { id: inputs.zoneId, outs };
  },

  // ---- read ----
  async read(ctx, id, olds) {
    const zone = await findZone(ctx, olds.zoneId ?? id);
    if (!zone) return {};
    const outs = toOutputs(zone, olds.timeout ?? null);
    return { id, props: outs, inputs: compactInputs(outs) };
  },

  // ---- update ----
  async update(ctx, _id, _olds, news) {
    return { outs: await waitPublished(ctx, news) };
  },
});

// ---- waiting ----
async function waitPublished(ctx: Context, inputs: DnsZoneVerificationInputs): Promise<DnsZoneVerificationOutputs> {
  const budget = waitBudgetMs(ctx, inputs.timeout, parseDuration(DEFAULT_TIMEOUT));
  const timeoutMs = budget.ms;
  const { value: zone, timedOut } = await pollUntil(
    async () => {
      const z = await dnsZoneApi.verify(ctx.client, inputs.zoneId);
      return z.published
        ? { done: true as const, value: z }
        : { done: false as const, value: z, progress: `zone ${z.name}: ownership not proven yet` };
    },
    { timeoutMs, log: (m) => ctx.log(m) },
  );
  const outs = toOutputs(zone, inputs.timeout ?? null);
  if (!timedOut) {
    ctx.log(`zone ${zone.name}: published (proven by ${zone.verificationMethod ?? "the platform"})`);
    return outs;
  }
  const v = zone.verificationRecord;
  const how = v
    ? `Publish the TXT record ${v.name} with the value "${v.value}" at the domain's current DNS host, or point the domain's nameservers at the platform (${PLATFORM_HINT}).`
    : `Point the domain's nameservers at the platform (${PLATFORM_HINT}).`;
  const message = `zone ${zone.name} is not verified after ${formatDuration(timeoutMs)}${limitNote(budget)}: ${zone.lastError ?? "ownership is not proven yet"}. ${how}`;
  throw new ResourceInitError(message, inputs.zoneId, outs);
}

// ---- mappers ----
function toOutputs(zone: V1DnsZone, timeout: string | null): DnsZoneVerificationOutputs {
  return {
    zoneId: zone.id,
    name: zone.name,
    published: zone.published,
    verificationMethod: zone.verificationMethod ?? null,
    verifiedAt: zone.verifiedAt ?? null,
    timeout,
  };
}

function compactInputs(o: DnsZoneVerificationOutputs): DnsZoneVerificationInputs {
  return o.timeout ? { zoneId: o.zoneId, timeout: o.timeout } : { zoneId: o.zoneId };
}
