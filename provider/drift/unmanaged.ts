// --unmanaged: the workspace's objects that no checked stack manages, found with the discovery
// cloudplatform-adopt uses, so the list can be handed to it (`cloudplatform-adopt --from-drift`).
// What a stack manages comes from its refresh's events (the state's ids); what exists, from the API.
// Counted: what adopt would write as one resource (projects, environments, services, custom
// domains, zones, mail domains, records and record sets, buckets), and each env var and secret file
// of a managed service that the service itself does not declare (an EnvVar or SecretFile resource's,
// or one added by hand). Not counted: records the
// platform made (not editable: no one can manage them), pull-request preview environments and
// suppressions (the platform makes them), and what adopt cannot read back (a published static site).
import type { EngineEvent, StepEventMetadata } from "@pulumi/pulumi/automation";
import type { Item } from "../adopt/discover";
import type { Context } from "../resources/framework";
import type { Unmanaged, UnmanagedObject } from "./types";

/** Resource kinds whose state id is the platform object's own, under the same kind. */
const SAME = new Set(["Project", "Environment", "Service", "CustomDomain", "DnsZone", "MailDomain", "DnsRecord", "Bucket", "EnvVar", "SecretFile"]);

/** The keys of the platform objects one resource of a stack manages. */
export function managedKeys(m: Pick<StepEventMetadata, "type" | "old" | "new">): string[] {
  const state = m.old ?? m.new;
  if (!state?.id || !/(^|[:/])cloudplatform:/.test(m.type)) return [];
  const kind = m.type.split(":").pop()!;
  const id = state.id;
  const inputs = (state.inputs ?? {}) as Record<string, unknown>;
  const out: string[] = [];
  if (SAME.has(kind)) out.push(`${kind}:${id}`);
  if (kind === "StaticSite") out.push(`Service:${id}`);
  if (kind === "DnsRecordSet") {
    const records = (state.outputs as { records?: { id?: string }[] } | undefined)?.records;
    for (const r of Array.isArray(records) ? records : []) if (typeof r?.id === "string") out.push(`DnsRecord:${r.id}`);
  }
  // A service that declares its env vars (or secret files) manages those keys; `up` leaves any
  // other alone (an EnvVar resource's, or one added by hand, which is then unmanaged). When the
  // state hides the keys (a list secret as a whole), the service is taken to hold them all.
  if (kind === "Service" || kind === "StaticSite") {
    for (const [list, idField, whole, each] of [["envVars", "key", "EnvVars", "EnvVarIn"], ["secretFiles", "path", "SecretFiles", "SecretFileIn"]] as const) {
      if (!(list in inputs)) continue;
      const keys = declaredKeys(inputs[list], idField);
      if (!keys) out.push(`${whole}:${id}`);
      else for (const k of keys) out.push(`${each}:${id}${list === "envVars" ? "/" : ":"}${k}`);
    }
  }
  return out;
}

/** The keys a keyed list declares: a list of items (the native SDK) or a map by key (the dynamic one); undefined when hidden. */
function declaredKeys(v: unknown, idField: string): string[] | undefined {
  if (v === null || v === undefined) return [];
  if (Array.isArray(v)) {
    const keys = v.map((x) => (x && typeof x === "object" ? (x as Record<string, unknown>)[idField] : undefined));
    return keys.every((k) => typeof k === "string") ? (keys as string[]) : undefined;
  }
  if (typeof v === "object" && !("4dabf18193072939515e22adb298388d" in v)) return Object.keys(v);
  return undefined;
}

/** Gathers the managed keys of a refresh's events. */
export class ManagedCollector {
  readonly keys = new Set<string>();
  onEvent = (e: EngineEvent): void => {
    const m = e.resOutputsEvent?.metadata;
    if (m && (m.old ?? m.new)?.custom) for (const k of managedKeys(m)) this.keys.add(k);
  };
}

/** Everything counted in a workspace: adopt's items, and the env vars and secret files of services. */
export interface Inventory {
  workspaceId: string;
  items: Item[];
  /** Per service id: its own env var keys and secret file paths. */
  serviceConfig: Map<string, { envVars: string[]; secretFiles: string[] }>;
}

/** The kinds counted; suppressions are the platform's record of bounces, not infrastructure. */
const KINDS = ["Project", "Environment", "Service", "CustomDomain", "DnsZone", "MailDomain", "DnsRecordSet", "DnsRecord", "Bucket"] as const;

/** Lists the workspace (adopt's discovery, plus each service's env vars and secret files). */
export async function inventory(ctx: Context): Promise<Inventory> {
  const [{ discover }, { ownEnvVars, secretFilesOf }] = await Promise.all([import("../adopt/discover"), import("../resources/serviceConfig")]);
  const found = await discover(ctx, { types: [...KINDS] });
  const serviceConfig = new Map<string, { envVars: string[]; secretFiles: string[] }>();
  for (const item of found.items.filter((i) => i.kind === "Service")) {
    const [vars, files] = await Promise.all([ownEnvVars(ctx.client, item.importId.split("?")[0]), secretFilesOf(ctx.client, item.importId.split("?")[0])]);
    serviceConfig.set(item.importId.split("?")[0], { envVars: vars.map((v) => v.key), secretFiles: files.map((f) => f.path) });
  }
  return { workspaceId: found.workspaceId, items: found.items, serviceConfig };
}

const recordIdsOf = (importId: string) => importId.slice(importId.indexOf("/") + 1).split(",");
const bareId = (importId: string) => importId.split("?")[0];

/** The unmanaged objects and the coverage, from the inventory and the keys the stacks manage. */
export function unmanagedOf(inv: Inventory, managed: Set<string>): Pick<Unmanaged, "workspaceId" | "coverage" | "objects"> {
  const objects: UnmanagedObject[] = [];
  let total = 0;
  let held = 0;
  const count = (isManaged: boolean, o: UnmanagedObject) => {
    total++;
    if (isManaged) held++;
    else objects.push(o);
  };
  for (const item of inv.items) {
    const name = item.parts.join("/");
    const importId = bareId(item.importId);
    // A record set adopt would make is managed when a stack holds any of its records.
    const isManaged = item.kind === "DnsRecordSet" ? recordIdsOf(importId).some((id) => managed.has(`DnsRecord:${id}`)) : managed.has(item.key);
    count(isManaged, { kind: item.kind, key: item.key, importId, name });
    if (item.kind !== "Service" || !isManaged) continue;
    // A managed service's env vars and secret files, less those the service declares itself
    // (counted with it, not apart).
    const cfg = inv.serviceConfig.get(importId);
    if (!managed.has(`EnvVars:${importId}`)) {
      for (const key of cfg?.envVars ?? []) {
        const id = `${importId}/${key}`;
        if (!managed.has(`EnvVarIn:${id}`)) count(managed.has(`EnvVar:${id}`), { kind: "EnvVar", key: `EnvVar:${id}`, importId: id, name: `${name}/${key}` });
      }
    }
    if (!managed.has(`SecretFiles:${importId}`)) {
      for (const path of cfg?.secretFiles ?? []) {
        const id = `${importId}:${path}`;
        if (!managed.has(`SecretFileIn:${id}`)) count(managed.has(`SecretFile:${id}`), { kind: "SecretFile", key: `SecretFile:${id}`, importId: id, name: `${name}:${path}` });
      }
    }
  }
  const percent = total ? Math.floor((held / total) * 1000) / 10 : 100;
  return { workspaceId: inv.workspaceId, coverage: { managed: held, total, percent }, objects };
}

/** The platform context of the run: the provider's own settings from the environment. */
export async function platformContext(env: NodeJS.ProcessEnv = process.env): Promise<Context> {
  const { makeContext, resolveConfig } = await import("../config");
  return makeContext(resolveConfig(() => undefined, env));
}
