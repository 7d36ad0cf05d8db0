// The dynamic SDK under Pulumi's mocks, previewing: an output the engine leaves unknown while
// previewing an update (it gives back only the new inputs) is read from the platform when no
// update changes it; a create, a declared input and an output the update changes stay as the
// engine gives them. A function naming what this run creates answers unknown. The import option
// fails with the way to the native SDK.
import * as pulumi from "@pulumi/pulumi";
import { emulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
let project: any;
let service: any;
/** What the engine gives back per resource name: the id (none for a create) and the outputs. */
const engine: Record<string, { id?: string; state: Record<string, unknown> }> = {};

beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  process.env.CLOUDPLATFORM_API_KEY = emu.apiKey;
  process.env.CLOUDPLATFORM_BASE_URL = emu.baseUrl;
  const api = emu.client();
  project = await api.create(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "shop", region: "eu-central-1" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "prod" });
  service = await api.create(`/v1/environments/${env.id}/services`, { name: "web", type: "WEB", image: "nginx:1.27" });
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        const e = engine[args.name];
        // The engine's preview of a create has no id; of a dynamic update, the inputs as outputs.
        return { id: e?.id ?? (undefined as unknown as string), state: e?.state ?? args.inputs };
      },
      call: () => ({}),
    },
    "proj",
    "stack",
    true,
  );
});
afterAll(async () => {
  delete process.env.CLOUDPLATFORM_API_KEY;
  delete process.env.CLOUDPLATFORM_BASE_URL;
  await emu?.close();
});

const value = <T>(o: pulumi.Output<T>): Promise<{ known: boolean; value: T }> =>
  new Promise((resolve) => (o as any).apply((v: T) => resolve({ known: !pulumi.isUnknown(v), value: v }), true));

test("while previewing an update, the outputs no update changes are read; a create's stay unknown", async () => {
  const cloud = await import("../../sdk");
  engine.updated = { id: project.id, state: { name: "shop", description: "new" } };
  const updated = new cloud.Project("updated", { name: "shop", description: "new" });
  expect(await value(updated.workspaceId)).toEqual({ known: true, value: emu.workspaceId });
  expect(await value(updated.region)).toEqual({ known: true, value: "eu-central-1" });
  expect((await value(updated.createdAt)).known).toBe(false); // not one users wire: left as the engine gives it
  const created = new cloud.Project("created", { name: "shop" });
  expect((await value(created.workspaceId)).known).toBe(false);

  // A new image keeps the URL; a rename changes it (the URL names the service), so it stays unknown.
  engine.web = { id: service.id, state: { name: "web", type: "WEB", image: "nginx:1.28" } };
  const web = new cloud.Service("web", { environmentId: "e", name: "web", type: "WEB", image: "nginx:1.28" });
  expect(await value(web.url)).toEqual({ known: true, value: expect.stringMatching(/^https:\/\/web-/) });
  engine.renamed = { id: service.id, state: { name: "web-2", type: "WEB", image: "nginx:1.27" } };
  const renamed = new cloud.Service("renamed", { environmentId: "e", name: "web-2", type: "WEB", image: "nginx:1.27" });
  expect((await value(renamed.url)).known).toBe(false);

  // A declared input is the program's value, even when it is not known yet.
  engine.declared = { id: project.id, state: { name: "shop" } };
  const declared = new cloud.Project("declared", { name: "shop", region: pulumi.output(pulumi.unknown as unknown as string) });
  expect((await value(declared.region)).known).toBe(false);
});

test("a function naming what this run creates answers unknown while previewing; an object that exists is read; a name that matches nothing fails", async () => {
  const cloud = await import("../../sdk");
  const api = emu.client();
  await api.create(`/v1/workspaces/${emu.workspaceId}/buckets`, { name: "existing-bucket" });
  const before = await emu.control("GET", "/counters");
  const fresh = new cloud.Bucket("fresh", { name: "fresh-bucket" });
  expect((await value(cloud.getBucketOutput({ name: fresh.name }))).known).toBe(false);
  expect(await emu.control("GET", "/counters")).toEqual(before); // nothing was asked
  expect(await value(cloud.getBucketOutput({ name: "existing-bucket" }))).toEqual({ known: true, value: expect.objectContaining({ name: "existing-bucket" }) });
  await expect(cloud.getBucket({ name: "no-such-bucket" })).rejects.toThrow(/^getBucket: no bucket named no-such-bucket in the workspace's default region/);
});

test("the import option names the native SDK", async () => {
  const cloud = await import("../../sdk");
  expect(() => new cloud.Project("legacy", { name: "legacy" }, { import: "p-123" })).toThrow(
    /Project legacy: the `import` resource option needs the native provider\. Import Project from "pulumi-cloudplatform\/native"/,
  );
});
