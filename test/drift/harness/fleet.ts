// The harness's fleet: a handful of stacks on one file backend, each holding every resource type
// (test/programs/drift-harness on the dynamic and the native SDK, test/python/drift_harness.py),
// built once per test file. Each stack's resources, ids and URNs come from its checkpoint.
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openStack, ROOT, type StackHandle } from "../../../scripts/pulumi-env";
import type { TestEmulator } from "../../support/emulator";
import { PROGRAMS } from "../../support/stack";
import { PYTHON } from "../../support/toolchains";
import { destroyStack, fleetEnv, run } from "../fleet";
import { fleetSpec, type FleetSecrets, type FleetSpec } from "./declared";

export const PROJECT = "drift-harness";
export type Sdk = "dynamic" | "native" | "python";

export interface StateResource {
  urn: string;
  id: string;
  type: string;
  outputs: Record<string, unknown>;
}

export interface HarnessStack {
  /** `organization/drift-harness/<stack>`. */
  name: string;
  stack: string;
  sdk: Sdk;
  spec: FleetSpec;
  secrets: FleetSecrets;
  /** By logical name. */
  res: Record<string, StateResource>;
  handle?: StackHandle;
}

/** The checkpoint's custom resources of the cloud platform, by logical name. */
export function stateResources(dir: string, stack: string): Record<string, StateResource> {
  const file = join(dir, "backend", ".pulumi", "stacks", PROJECT, `${stack}.json`);
  const cp = JSON.parse(readFileSync(file, "utf8")) as { checkpoint: { latest: { resources: (StateResource & { custom?: boolean })[] } } };
  const out: Record<string, StateResource> = {};
  for (const r of cp.checkpoint.latest.resources) {
    if (!r.custom || r.type.startsWith("pulumi:providers:")) continue;
    out[`${r.type.split(":").pop()} ${r.urn.split("::").pop()}`] = { urn: r.urn, id: r.id, type: r.type, outputs: r.outputs };
  }
  return out;
}

/** Makes one stack: its zone delegated first, so the zone, mail domain and custom domain verify during `up`. */
export async function buildStack(emu: TestEmulator, dir: string, sdk: Sdk, stack: string, tag: string): Promise<HarnessStack> {
  const { spec, secrets } = fleetSpec(stack, tag);
  await emu.control("POST", "/dns/delegations", { domain: spec.zone });
  const s: HarnessStack = { name: `organization/${PROJECT}/${stack}`, stack, sdk, spec, secrets, res: {} };
  if (sdk !== "python") {
    s.handle = await openStack({
      programDir: join(PROGRAMS, "drift-harness"), stackName: stack, stateDir: dir, env: fleetEnv(emu, dir), inProcess: true,
      config: {
        sdk, spec: JSON.stringify(spec),
        ...Object.fromEntries(Object.entries(secrets).map(([k, v]) => [k, { value: v, secret: true }])),
      },
    });
  }
  await upStack(emu, dir, s);
  return s;
}

/** `up --refresh` from the stack's program (what puts back objects deleted by hand), then its resources read again. */
export async function upStack(emu: TestEmulator, dir: string, s: HarnessStack): Promise<void> {
  if (s.handle) await s.handle.stack.up({ refresh: true });
  else {
    const work = join(dir, `work-${s.stack}`);
    mkdirSync(work, { recursive: true });
    await run(PYTHON, [join(ROOT, "test", "python", "drift_harness.py")], {
      env: {
        ...fleetEnv(emu, dir), WORK_DIR: work, STACK: s.stack, PROJECT, SPEC: JSON.stringify(s.spec), PYTHONPATH: join(ROOT, "test", "python"),
        ...Object.fromEntries(Object.entries(s.secrets).map(([k, v]) => [`SECRET_${k}`, v])),
      },
      timeout: 900_000,
    });
  }
  s.res = stateResources(dir, s.stack);
}

/** Destroys a stack (whatever was deleted by hand is gone already) and removes it. */
export async function removeStack(emu: TestEmulator, dir: string, s: HarnessStack): Promise<void> {
  try {
    await destroyStack(emu, dir, { name: s.name, project: PROJECT, outputs: {} as never, handle: s.handle });
  } finally {
    for (const ext of ["yaml", "yml"]) rmSync(join(PROGRAMS, "drift-harness", `Pulumi.${s.stack}.${ext}`), { force: true });
  }
}
