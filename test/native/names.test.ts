// Generated names and unique names, on both SDKs in one stack: a bucket with no name is
// `<logical name>-<suffix>`, and the name a plain preview shows is the one `up` makes, for the
// create and for a replacement (which gets a fresh one). `pulumi up --replace` of a service, whose
// name is unique in its environment, deletes the old one first instead of failing with 409; of a
// project, it makes a new one instead of adopting the old one by its Idempotency-Key.
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, expectNoDrift, pulumiCmd, testStack } from "../support/stack";

jest.setTimeout(300_000);

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
});
afterAll(async () => emu?.close());

interface Step {
  op: string;
  urn: string;
  newState?: { inputs?: Record<string, unknown> };
}

test("auto-names agree between preview and up on both SDKs; --replace of a uniquely named service works on both", async () => {
  const s = await testStack(emu, "names", { region: "eu-central-1" });
  const api = emu.client();
  const run = (args: string[]) => pulumiCmd(s, [...args, "--stack", s.stack.name]);
  // the bucket names a plain preview shows, by SDK
  const previewNames = async () => {
    const { steps } = JSON.parse((await run(["preview", "--json"])).stdout) as { steps: Step[] };
    const name = (type: string) => steps.find((st) => st.urn.endsWith(`${type}::media`) && st.op !== "same")?.newState?.inputs?.name;
    return { native: name("cloudplatform:index:Bucket"), dynamic: name("pulumi-nodejs:dynamic/cloudplatform:Bucket") };
  };
  try {
    const shown = await previewNames();
    expect(shown.native).toMatch(/^media-[a-z0-9]{7}$/);
    expect(shown.dynamic).toMatch(/^media-[a-z0-9]{7}$/);
    expect(shown.native).not.toBe(shown.dynamic);
    const up = await s.stack.up();
    expect({ native: up.outputs.nativeBucketName.value, dynamic: up.outputs.dynamicBucketName.value }).toEqual(shown);
    await expectNoDrift(s);

    // a new region replaces both buckets: a fresh name each, shown by the preview and made by up
    await s.stack.setConfig("region", { value: "us-east-1" });
    const next = await previewNames();
    expect(next.native).toMatch(/^media-[a-z0-9]{7}$/);
    expect(next.native).not.toBe(shown.native);
    expect(next.dynamic).not.toBe(shown.dynamic);
    const moved = await s.stack.up();
    expect(changes(moved)).toEqual({ replace: 2 });
    expect({ native: moved.outputs.nativeBucketName.value, dynamic: moved.outputs.dynamicBucketName.value }).toEqual(next);
    expect(await api.list(`/v1/workspaces/${emu.workspaceId}/buckets`, { query: { region: "eu-central-1" } })).toEqual([]);

    // --replace of each service: the old one goes first (names are unique in the environment)
    const state = (await s.stack.exportStack()).deployment.resources as { urn: string; type: string }[];
    const urns = state.filter((r) => /Service$/.test(r.type)).map((r) => r.urn);
    expect(urns).toHaveLength(2);
    const replaced = await s.stack.up({ replace: urns });
    expect(changes(replaced)).toEqual({ replace: 2 });
    expect(replaced.outputs.webId.value).not.toBe(moved.outputs.webId.value);
    expect(replaced.outputs.apiId.value).not.toBe(moved.outputs.apiId.value);
    const services = await api.list<any>(`/v1/environments/${moved.outputs.environmentId.value}/services`);
    expect(services.map((x) => x.id).sort()).toEqual([replaced.outputs.webId.value, replaced.outputs.apiId.value].sort());
    expect(changes(await s.stack.preview({ expectNoChanges: true }))).toEqual({});

    // --replace of the project, unchanged, within the Idempotency-Key window: a new project (not
    // the old one answered again, then deleted), its environment and services with it
    const project = state.find((r) => r.type === "cloudplatform:index:Project")!.urn;
    const before = (await s.stack.exportStack()).deployment.resources.find((r: { urn: string }) => r.urn === project).id;
    const again = await s.stack.up({ replace: [project] });
    expect(changes(again)).toEqual({ replace: 4 });
    const after = (await s.stack.exportStack()).deployment.resources.find((r: { urn: string }) => r.urn === project).id;
    expect(after).not.toBe(before);
    expect((await api.list<any>(`/v1/workspaces/${emu.workspaceId}/projects`)).map((p) => p.id)).toEqual([after]);
    expect(changes(await s.stack.preview({ expectNoChanges: true }))).toEqual({});

    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
