// docs/emulator.md's "Drift by hand": its block and each command of its table, taken from the
// Markdown and run as written (bash and curl) against an emulator holding the objects they name;
// each row's change is then read back through the API. A row added to the table needs a check here.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { emulator, type TestEmulator } from "../support/emulator";

const MARKER = "<!-- test/emulator/drift-by-hand.test.ts runs this block and each command of the table as written -->";
const doc = readFileSync(join(__dirname, "..", "..", "docs", "emulator.md"), "utf8");
const section = doc.slice(doc.indexOf(MARKER));
const prelude = /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? "";
/** The table's rows after the block: the change, and the command in its second cell. */
const rows = section.slice(section.indexOf("\n|")).split("\n\n")[0].trim().split("\n").slice(2)
  .map((line) => line.split(" | "))
  .map(([change, command]) => ({ change: change.replace(/^\| /, ""), command: /^`(.*)`$/.exec(command)?.[1] ?? `(no command in: ${command})` }));

let emu: TestEmulator;
let api: ReturnType<TestEmulator["client"]>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  api = emu.client();
  const project = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "by-hand" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "dev" });
  const svc = await api.create<any>(`/v1/environments/${env.id}/services`, {
    name: "web", type: "WEB", image: "nginx:1.26", envVars: [{ key: "LOG_LEVEL", value: "info" }, { key: "MODE", value: "light" }],
  });
  const zone = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/dns-zones`, { name: "by-hand.test" });
  const record = await api.create<any>(`/v1/dns-zones/${zone.id}/records`, { name: "www", type: "CNAME", content: "app.example.net", ttl: 600 });
  const bucket = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/buckets`, { name: "by-hand-uploads" });
  await api.put(`/v1/workspaces/${emu.workspaceId}/buckets/${bucket.name}/cors`, { rules: [{ allowedMethods: ["PUT"], allowedOrigins: ["https://app.example.com"] }] });
  Object.assign(ids, { SERVICE_ID: svc.id, ZONE_ID: zone.id, RECORD_ID: record.id, BUCKET: bucket.name, WORKSPACE_ID: emu.workspaceId });
});
afterAll(async () => emu?.close());

/** Runs the block and one command with bash, as a reader's shell would, with the ids exported. */
function run(command: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile("bash", ["-euo", "pipefail", "-c", `${prelude}\n${command}`], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey, ...ids },
    }, (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, out: `${stdout}${stderr}` }));
  });
}

const envVars = async () => Object.fromEntries((await api.list<any>(`/v1/services/${ids.SERVICE_ID}/env-vars`)).map((v) => [v.key, v.value]));
const records = () => api.list<any>(`/v1/dns-zones/${ids.ZONE_ID}/records`);
const cors = () => api.list<any>(`/v1/workspaces/${ids.WORKSPACE_ID}/buckets/${ids.BUCKET}/cors`);

/** What each row changes, read before and after its command. */
const CHECKS: Record<string, { read: () => Promise<unknown>; before: unknown; after: unknown }> = {
  "An env var": { read: envVars, before: { LOG_LEVEL: "info", MODE: "light" }, after: { LOG_LEVEL: "debug", MODE: "light" } },
  "An image": { read: async () => (await api.get<any>(`/v1/services/${ids.SERVICE_ID}`)).source.image, before: "nginx:1.26", after: "nginx:1.27" },
  "A DNS record": {
    read: async () => (await records()).map((r) => [r.name, r.type, r.content, r.ttl]),
    before: [["www", "CNAME", "app.example.net", 600]], after: [["www", "CNAME", "elsewhere.example.net", 600]],
  },
  "A bucket's CORS": {
    read: async () => (await cors()).map((r) => [r.allowedMethods, r.allowedOrigins]),
    before: [[["PUT"], ["https://app.example.com"]]], after: [[["GET"], ["*"]]],
  },
  "Delete a DNS record": { read: async () => (await records()).length, before: 1, after: 0 },
};

test("the section has its block and a row for each change checked here, in this order", () => {
  expect(prelude).toContain("CLOUDPLATFORM_API_KEY");
  expect(rows.map((r) => r.change)).toEqual(Object.keys(CHECKS));
});

test.each(rows.map((r) => [r.change, r.command] as const))("%s: `%s` makes the change", async (change, command) => {
  const check = CHECKS[change];
  expect(await check.read()).toEqual(check.before);
  const r = await run(command);
  expect({ code: r.code, out: r.out }).toEqual({ code: 0, out: expect.not.stringMatching(/"statusCode":\s*[45]\d\d/) });
  expect(await check.read()).toEqual(check.after);
});

test("a field the route does not define is refused, naming it, and nothing changes (the docs' example)", async () => {
  const before = (await api.get<any>(`/v1/services/${ids.SERVICE_ID}`)).source.image;
  const r = await run(`curl -sS -X PATCH "$API/v1/services/$SERVICE_ID" -H "$AUTH" --json '{"image":"nginx:1.28"}'`);
  expect(r.out).toContain("image: is not a field of this body");
  expect((await api.get<any>(`/v1/services/${ids.SERVICE_ID}`)).source.image).toBe(before);
  expect(doc).toContain("`image: is not a field of this body`");
});
