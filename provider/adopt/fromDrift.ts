// `cloudplatform-adopt --from-drift drift.json`: adopts exactly what a cloudplatform-drift report
// lists as unmanaged (`--unmanaged`). The workspace is discovered again, so every import id and
// every secret left out is as of now; an object listed and since gone is said so and left out. An
// env var or secret file of a managed service becomes an `EnvVar` or `SecretFile`, its value left
// out of the import (`?omit=value`, `?omit=content`) and read from config by `secrets`.
import { findOrUndefined, type Context } from "../resources/framework";
import { ownEnvVars, secretFilesOf } from "../resources/serviceConfig";
import { discover, KINDS, type Discovery, type Item, type Kind } from "./discover";

interface DriftReport {
  tool?: string;
  unmanaged?: { workspaceId: string; objects: { kind: string; key: string; importId: string; name: string }[]; error?: string };
}

/** The unmanaged list of a drift report's text. */
export function unmanagedList(text: string, source: string): NonNullable<DriftReport["unmanaged"]> {
  let r: DriftReport;
  try {
    r = JSON.parse(text) as DriftReport;
  } catch (err) {
    throw new Error(`--from-drift ${source}: not JSON (${(err as Error).message})`);
  }
  if (r?.tool !== "cloudplatform-drift") throw new Error(`--from-drift ${source}: not a cloudplatform-drift report`);
  if (!r.unmanaged) throw new Error(`--from-drift ${source}: the report lists no unmanaged objects: make it with cloudplatform-drift --unmanaged`);
  if (r.unmanaged.error) throw new Error(`--from-drift ${source}: the report's listing failed: ${r.unmanaged.error}`);
  return r.unmanaged;
}

/** What to import: the listed objects as discovered now; the listed ones gone since are `skipped`. */
export async function discoverListed(ctx: Context, list: NonNullable<DriftReport["unmanaged"]>): Promise<Discovery> {
  const workspaceId = await ctx.workspaceId();
  if (list.workspaceId && list.workspaceId !== workspaceId) {
    throw new Error(`--from-drift: the report lists workspace ${list.workspaceId}, the key reaches ${workspaceId}: set CLOUDPLATFORM_WORKSPACE_ID or --workspace`);
  }
  const types = [...new Set(list.objects.map((o) => o.kind).filter((k): k is Kind => (KINDS as readonly string[]).includes(k)))];
  const found = types.length ? await discover(ctx, { types }) : { workspaceId, items: [], skipped: [] };
  const byKey = new Map(found.items.map((i) => [i.key, i]));
  const wanted = new Set(list.objects.map((o) => o.key));
  const items = found.items.filter((i) => wanted.has(i.key));
  const skipped: string[] = [];
  for (const o of list.objects) {
    if (o.kind === "EnvVar" || o.kind === "SecretFile") {
      const serviceId = o.kind === "EnvVar" ? o.importId.slice(0, o.importId.indexOf("/")) : o.importId.slice(0, o.importId.indexOf(":"));
      const item = await configItem(ctx, o.kind, o.importId, o.name, serviceId);
      if (item) items.push(item);
      else skipped.push(`${o.kind} ${o.name}: no longer in the workspace`);
    } else if (!byKey.has(o.key)) {
      skipped.push(`${o.kind} ${o.name}: no longer in the workspace, or not adoptable`);
    }
  }
  // Parents that are not adopted (managed by a stack already) are not parents.
  const keys = new Set(items.map((i) => i.key));
  for (const i of items) if (i.parent && !keys.has(i.parent)) delete i.parent;
  return { workspaceId, items, skipped };
}

/** An env var or secret file still there, as an item whose value the import leaves out. */
async function configItem(ctx: Context, kind: "EnvVar" | "SecretFile", importId: string, name: string, serviceId: string): Promise<Item | undefined> {
  const parts = name.split("/");
  if (kind === "EnvVar") {
    const key = importId.slice(serviceId.length + 1);
    const vars = await findOrUndefined(() => ownEnvVars(ctx.client, serviceId));
    if (!vars?.some((v) => v.key === key)) return undefined;
    return { kind, key: `EnvVar:${importId}`, importId, leaveOut: ["value"], parts, parent: `Service:${serviceId}`, tiebreak: importId };
  }
  const path = importId.slice(serviceId.length + 1);
  const files = await findOrUndefined(() => secretFilesOf(ctx.client, serviceId));
  if (!files?.some((f) => f.path === path)) return undefined;
  return { kind, key: `SecretFile:${importId}`, importId, leaveOut: ["content"], parts: [...parts.slice(0, -1), ...parts[parts.length - 1].split(":")], parent: `Service:${serviceId}`, tiebreak: importId };
}
