// What the platform holds against what a stack tracks: no duplicate, no orphan.
import type { StackHandle } from "../../scripts/pulumi-env";
import type { TestEmulator } from "./emulator";

export interface StateResource {
  urn: string;
  type: string;
  id?: string;
  outputs?: Record<string, any>;
  initErrors?: string[];
}

export async function stateResources(s: Pick<StackHandle, "stack">): Promise<StateResource[]> {
  const exported = await s.stack.exportStack();
  return (exported.deployment.resources ?? []) as StateResource[];
}
export const ofKind = (rs: StateResource[], kind: string) => rs.filter((r) => r.type.endsWith(`cloudplatform:${kind}`));

/** Objects on the platform by kind, read from the emulator's own tables (USER records only). */
export function platform(emu: TestEmulator) {
  const ids = (table: string, keep: (row: any) => boolean = () => true) =>
    emu.emu.store.table<any>(table).where(keep).map((r: any) => r.id).sort();
  return {
    Project: ids("projects"),
    Environment: ids("environments"),
    Service: ids("services"),
    DnsZone: ids("dnsZones"),
    DnsRecord: ids("dnsRecords", (r) => r.origin === "USER"),
  };
}

/** Every platform object of these kinds is tracked by exactly one resource in state. */
export async function expectNoDuplicatesOrOrphans(emu: TestEmulator, s: StackHandle) {
  const rs = await stateResources(s);
  const tracked = (kind: string) => ofKind(rs, kind).map((r) => r.id!).sort();
  const setRecords = ofKind(rs, "DnsRecordSet").flatMap((r) => (r.outputs?.records ?? []).map((x: any) => x.id));
  const live = platform(emu);
  expect(live.Project).toEqual(tracked("Project"));
  expect(live.Environment).toEqual(tracked("Environment"));
  expect(live.Service).toEqual(tracked("Service"));
  expect(live.DnsZone).toEqual(tracked("DnsZone"));
  expect(live.DnsRecord).toEqual([...tracked("DnsRecord"), ...setRecords].sort());
}

// The size measures live with the benches, which report them too.
export { serializedProvider, stateOverhead } from "../../scripts/state-size";
