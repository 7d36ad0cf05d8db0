// CheckDestroy, as Terraform's acceptance tests do it: every resource a stack holds is looked up by
// its own id with its own read handler, live before a destroy and gone after it. "Nothing left" alone
// cannot see a child whose delete does nothing when its parent's delete cascades over it.
import type { Stack } from "@pulumi/pulumi/automation";
import { makeContext } from "../../provider/config";
import { resources } from "../../provider/resources";
import type { TestEmulator } from "./emulator";
import { stateResources } from "./tracking";

/** A resource with an object of its own on the platform. */
export interface OwnObject {
  urn: string;
  kind: string;
  id: string;
  outputs: Record<string, unknown>;
}

/** Resource kinds with no object of their own on the platform (they wait on another one). */
const NO_OBJECT = new Set(["DnsZoneVerification", "MailDomainVerification", "CustomDomainVerification"]);

/** The stack's provider resources with an object of their own, by kind and id. */
export async function stackResources(stack: Stack): Promise<OwnObject[]> {
  return (await stateResources({ stack }))
    .map((r) => ({ urn: r.urn, kind: kindOf(r.type), id: r.id ?? "", outputs: plain(r.outputs ?? {}) }))
    .filter((r) => r.kind && r.id && resources[r.kind] && !NO_OBJECT.has(r.kind));
}

/** `pulumi-nodejs:dynamic/cloudplatform:Project` or `cloudplatform:index:Project` -> `Project`. */
function kindOf(type: string): string {
  const m = /^(?:pulumi-nodejs:dynamic\/cloudplatform|cloudplatform:index):(\w+)$/.exec(type);
  return m ? m[1] : "";
}

/** Secret values stay encrypted in an export; a lookup by id does not need them. */
function plain(outputs: Record<string, unknown>): Record<string, unknown> {
  const isSecret = (v: unknown) => !!v && typeof v === "object" && "4dabf18193072939515e22adb298388d" in (v as object);
  return Object.fromEntries(Object.entries(outputs).filter(([, v]) => !isSecret(v)));
}

/** Looks each resource up by id; returns the ones found. */
export async function lookUp(emu: TestEmulator, list: OwnObject[]): Promise<OwnObject[]> {
  const ctx = makeContext({ apiKey: emu.apiKey, baseUrl: emu.baseUrl, workspaceId: emu.workspaceId });
  try {
    const found: OwnObject[] = [];
    for (const r of list) {
      const read = await resources[r.kind].read!(ctx, r.id, r.outputs as any);
      if (read.id && holdsSomething(r.kind, read.props)) found.push(r);
    }
    return found;
  } finally {
    await ctx.client.close();
  }
}

/** A record set's read keeps an empty set while its zone lives (drift that `up` repairs): it exists while it holds a record. */
function holdsSomething(kind: string, props: Record<string, unknown> | undefined): boolean {
  return kind !== "DnsRecordSet" || ((props?.records as unknown[] | undefined)?.length ?? 0) > 0;
}

const names = (list: OwnObject[]) => list.map((r) => `${r.kind} ${r.id}`).sort();

/** Every resource is live now. Call before a destroy, with what stackResources returned. */
export async function expectAllLive(emu: TestEmulator, list: OwnObject[]): Promise<void> {
  expect(list.length).toBeGreaterThan(0);
  expect(names(await lookUp(emu, list))).toEqual(names(list));
}

/** None of them can be found any more. Call after a destroy. */
export async function expectAllGone(emu: TestEmulator, list: OwnObject[]): Promise<void> {
  expect(names(await lookUp(emu, list))).toEqual([]);
}

/**
 * After a child was taken out of the program and `up` ran: exactly the children `gone` (by URN
 * suffix, e.g. "::staging") no longer exist, and every other resource of `before` still does.
 */
export async function expectOnlyRemoved(emu: TestEmulator, before: OwnObject[], gone: string[]): Promise<void> {
  const removed = before.filter((r) => gone.some((g) => r.urn.endsWith(g)));
  expect(removed.length).toBe(gone.length);
  const kept = before.filter((r) => !removed.includes(r));
  expect(names(await lookUp(emu, before))).toEqual(names(kept));
}
