// The native plugin's gRPC server in-process, called as the engine calls it, against the emulator:
// configuration from Configure, unknowns at check, detailed diffs, create with an init error kept
// in state, read for import with no properties, invoke, schema and version; secret inputs stay
// secret in every answer.
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import * as pb from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { serve } from "../../provider/plugin/server";
import { requestSecrets, SECRET_SIG, SIG, toStruct } from "../../provider/plugin/values";
import { UNKNOWN } from "../../provider/resources/framework";
import { emulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
let server: grpc.Server;
let client: any;
const URN = (type: string, name: string) => `urn:pulumi:dev::proj::cloudplatform:index:${type}::${name}`;
const struct = (o: Record<string, unknown>) => Struct.fromJavaScript(o as any);

/** One unary call, as a promise. */
function call<Res>(method: string, req: unknown): Promise<Res> {
  return new Promise((resolve, reject) => client[method](req, (err: Error | null, res: Res) => (err ? reject(err) : resolve(res))));
}

beforeAll(async () => {
  emu = await emulator({ settings: { speed: 1 } });
  const started = await serve();
  server = started.server;
  client = new ResourceProviderClient(`127.0.0.1:${started.port}`, grpc.credentials.createInsecure());
  const req = new pb.ConfigureRequest();
  req.setArgs(struct({ apiKey: emu.apiKey, baseUrl: emu.baseUrl, version: "0.1.0" }));
  const res = await call<pb.ConfigureResponse>("configure", req);
  // Secrets arrive marked (the engine constructs components only with a plugin that accepts them), so a
  // secret nested in a list stays one value, not the whole list.
  expect(res.getAcceptsecrets()).toBe(true);
  expect(res.getSupportspreview()).toBe(true);
});
afterAll(async () => {
  client?.close();
  server?.forceShutdown();
  await emu?.close();
});

test("schema, version, and the provider's own inputs checked with the rule named", async () => {
  const schema = JSON.parse((await call<pb.GetSchemaResponse>("getSchema", new pb.GetSchemaRequest())).getSchema());
  expect(Object.keys(schema.resources)).toContain("cloudplatform:index:Service");
  expect((await call<any>("getPluginInfo", new Empty())).getVersion()).toBe(schema.version);
  const bad = new pb.CheckRequest();
  bad.setNews(struct({ baseUrl: "ftp://nowhere", apiKey: UNKNOWN }));
  const r = await call<pb.CheckResponse>("checkConfig", bad);
  expect(r.getFailuresList().map((f) => f.getReason())).toEqual(["baseUrl: 'ftp://nowhere' is not an http(s) URL"]);
});

test("check: rules on known inputs, unknowns passed through; diff: detail by path, update vs replace", async () => {
  const check = new pb.CheckRequest();
  check.setUrn(URN("Service", "web"));
  check.setType("cloudplatform:index:Service");
  check.setNews(struct({ environmentId: UNKNOWN, name: "web", type: "WEB", image: "nginx:1", port: 70000 }));
  const failed = await call<pb.CheckResponse>("check", check);
  expect(failed.getFailuresList().map((f) => f.getProperty())).toEqual(["port"]);
  check.setNews(struct({ environmentId: UNKNOWN, name: "web", type: "WEB", image: "nginx:1" }));
  const ok = await call<pb.CheckResponse>("check", check);
  expect(ok.getInputs()?.toJavaScript()).toMatchObject({ environmentId: UNKNOWN, name: "web" });

  const diff = new pb.DiffRequest();
  diff.setUrn(URN("Service", "web"));
  diff.setType("cloudplatform:index:Service");
  const vars = (mode: string) => [{ key: "A", value: "1", scope: "ALL", secret: false }, { key: "MODE", value: mode, scope: "ALL", secret: false }];
  diff.setOlds(struct({ environmentId: "e1", name: "web", type: "WEB", image: "nginx:1", envVars: vars("prod") }));
  diff.setNews(struct({ environmentId: "e1", name: "web", type: "STATIC", image: "nginx:1", envVars: vars("dev") }));
  const d = await call<pb.DiffResponse>("diff", diff);
  expect(d.getChanges()).toBe(pb.DiffResponse.DiffChanges.DIFF_SOME);
  expect(d.getReplacesList()).toEqual(["type"]);
  expect(d.getHasdetaileddiff()).toBe(true);
  const detail = Object.fromEntries(d.getDetaileddiffMap().getEntryList().map(([k, v]) => [k, (v as any)[0]]));
  expect(detail).toEqual({ "envVars[1].value": pb.PropertyDiff.Kind.UPDATE, type: pb.PropertyDiff.Kind.UPDATE_REPLACE });
  expect(d.getDeletebeforereplace()).toBe(true);
});

test("secrets per value: a secret variable's value, or a value the program sent as a secret, is secret on its own", async () => {
  const check = new pb.CheckRequest();
  check.setUrn(URN("Service", "web"));
  check.setType("cloudplatform:index:Service");
  const secret = (value: unknown) => ({ [SIG]: SECRET_SIG, value });
  check.setNews(struct({
    environmentId: "e1", name: "web", type: "WEB", image: "nginx:1",
    envVars: [
      { key: "PLAIN", value: "visible" },
      { key: "TOKEN", value: "flagged", secret: true },
      { key: "FROM_CONFIG", value: secret("sent-secret") },
    ],
  }));
  const inputs = (await call<pb.CheckResponse>("check", check)).getInputs()!.toJavaScript() as any;
  expect(inputs.envVars).toEqual([
    { key: "FROM_CONFIG", value: secret("sent-secret"), scope: "ALL", secret: false },
    { key: "PLAIN", value: "visible", scope: "ALL", secret: false },
    { key: "TOKEN", value: secret("flagged"), scope: "ALL", secret: true },
  ]);
  // a top-level input sent as a secret comes back secret as a whole
  const project = new pb.CheckRequest();
  project.setUrn(URN("Project", "p"));
  project.setType("cloudplatform:index:Project");
  project.setNews(struct({ name: "p", description: secret("hidden text") }));
  expect((await call<pb.CheckResponse>("check", project)).getInputs()!.toJavaScript()).toEqual({ name: "p", description: secret("hidden text") });
});

test("a nested secret the handler rewrites cannot be found by value: its whole property stays secret", async () => {
  const secret = (value: unknown) => ({ [SIG]: SECRET_SIG, value });
  // a TXT record's content comes back from create unquoted and trimmed
  const sent = struct({ records: [{ name: "v", type: "TXT", content: secret('"tok-123 "') }, { name: "w", type: "TXT", content: "plain" }] });
  const records = toStruct({ records: [{ name: "v", type: "TXT", content: "tok-123" }, { name: "w", type: "TXT", content: "plain" }] }, { from: requestSecrets(undefined, sent) })
    .toJavaScript().records as any;
  expect(records[SIG]).toBe(SECRET_SIG);
  // unchanged, the secret is marked on its own and the rest stays readable
  const same = toStruct({ records: [{ name: "v", type: "TXT", content: '"tok-123 "' }] }, { from: requestSecrets(undefined, sent) }).toJavaScript().records as any;
  expect(same).toEqual([{ name: "v", type: "TXT", content: secret('"tok-123 "') }]);

  // a bucket policy given as an object is folded into JSON text by check
  const bucket = new pb.CheckRequest();
  bucket.setUrn(URN("Bucket", "b"));
  bucket.setType("cloudplatform:index:Bucket");
  bucket.setNews(struct({ name: "assets-b", policy: { Statement: [{ Sid: secret("hiddensid"), Effect: "Allow", Action: "s3:GetObject", Principal: "*", Resource: "*" }] } }));
  const checked = (await call<pb.CheckResponse>("check", bucket)).getInputs()!.toJavaScript() as any;
  expect(JSON.stringify(checked)).toContain("hiddensid");
  expect(checked.policy[SIG]).toBe(SECRET_SIG);
});

test("a Bucket with no name is <logical name>-<suffix>, the suffix from the URN: the same at every check", async () => {
  const check = (urn: string, news: Record<string, unknown>) => {
    const req = new pb.CheckRequest();
    req.setUrn(urn);
    req.setType("cloudplatform:index:Bucket");
    req.setNews(struct(news));
    req.setRandomseed(new Uint8Array(32).map(() => Math.floor(Math.random() * 256)));
    return call<pb.CheckResponse>("check", req).then((r) => (r.getInputs()!.toJavaScript() as any).name);
  };
  const first = await check(URN("Bucket", "Site Assets"), {});
  expect(first).toMatch(/^site-assets-[a-z0-9]{7}$/);
  expect(await check(URN("Bucket", "Site Assets"), {})).toBe(first);
  // another stack, or a change that replaces the bucket, gives another suffix
  expect(await check(URN("Bucket", "Site Assets").replace("dev::", "prod::"), {})).not.toBe(first);
  expect(await check(URN("Bucket", "Site Assets"), { region: "eu-central-1" })).not.toBe(first);
  // unknown while an input that names the bucket's place is
  expect(await check(URN("Bucket", "Site Assets"), { workspaceId: UNKNOWN })).toBe(UNKNOWN);
});

test("create returns secrets as secrets; a wait cut short by the timeout keeps the object through ErrorResourceInitFailed", async () => {
  const api = emu.client();
  const project = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "p" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "production" });
  const create = new pb.CreateRequest();
  create.setUrn(URN("Service", "slow"));
  create.setType("cloudplatform:index:Service");
  create.setTimeout(1);
  create.setProperties(struct({ environmentId: env.id, name: "slow", type: "WEB", image: "nginx:1", envVars: [{ key: "T", value: "s3cret-value", scope: "ALL", secret: true }] }));
  const started = Date.now();
  const err = (await call("create", create).then(() => undefined, (e) => e)) as grpc.ServiceError;
  expect(Date.now() - started).toBeLessThan(4_000);
  expect(err.details).toMatch(/slow: deploy \S+ was still \w+ after 1s \(customTimeouts\); raise customTimeouts/);
  const status = Status.deserializeBinary(err.metadata.get("grpc-status-details-bin")[0] as Uint8Array);
  const init = pb.ErrorResourceInitFailed.deserializeBinary(status.getDetailsList()[0].getValue_asU8());
  expect(status.getDetailsList()[0].getTypeName()).toBe("pulumirpc.ErrorResourceInitFailed");
  const props = init.getProperties()!.toJavaScript() as any;
  expect(init.getId()).toBeTruthy();
  expect(props.envVars).toEqual([{ key: "T", value: { [SIG]: SECRET_SIG, value: "s3cret-value" }, scope: "ALL", secret: true }]);
  expect(init.getInputs()!.toJavaScript()).toMatchObject({ name: "slow" });

  // read with no properties (an import) reports the inputs a program would declare
  const read = new pb.ReadRequest();
  read.setId(init.getId());
  read.setUrn(URN("Service", "slow"));
  read.setType("cloudplatform:index:Service");
  const got = await call<pb.ReadResponse>("read", read);
  expect(got.getId()).toBe(init.getId());
  const inputs = got.getInputs()!.toJavaScript() as any;
  expect(inputs).toMatchObject({ environmentId: env.id, name: "slow", type: "WEB", image: "nginx:1" });
  expect(inputs.envVars).toEqual([{ key: "T", value: { [SIG]: SECRET_SIG, value: "s3cret-value" }, scope: "ALL", secret: true }]);

  // delete, then a read of the gone object answers with no id
  const del = new pb.DeleteRequest();
  del.setId(init.getId());
  del.setUrn(URN("Service", "slow"));
  del.setType("cloudplatform:index:Service");
  await call("delete", del);
  expect((await call<pb.ReadResponse>("read", read)).getId()).toBe("");

  // invoke runs the same function the dynamic SDK calls
  const invoke = new pb.InvokeRequest();
  invoke.setTok("cloudplatform:index:getProject");
  invoke.setArgs(struct({ projectId: project.id }));
  const result = await call<pb.InvokeResponse>("invoke", invoke);
  expect(result.getReturn()!.toJavaScript()).toMatchObject({ id: project.id, name: "p", workspaceId: emu.workspaceId });
  await api.delete(`/v1/projects/${project.id}`);
});

test("a preview of an update keeps exactly the outputs the update cannot change; diff names them as stables", async () => {
  const olds = {
    environmentId: "e1", name: "web", type: "WEB", image: "nginx:1", port: 8080, region: "af-west-1", regionLabel: "Cape Town",
    status: "ACTIVE", health: "HEALTHY", suspension: "NONE", url: "https://web-abc123.cloudplatform.app", runtime: null, framework: null,
    latestDeployId: "d1", latestDeployStatus: "RUNNING", lastDeployedAt: "2026-01-01T00:00:00Z", pendingRedeploy: false,
    connection: null, createdAt: "2026-01-01T00:00:00Z", timeout: "2m",
  };
  const oldInputs = { environmentId: "e1", name: "web", type: "WEB", image: "nginx:1", port: 8080, timeout: "2m" };
  const preview = async (news: Record<string, unknown>) => {
    const req = new pb.UpdateRequest();
    req.setUrn(URN("Service", "web"));
    req.setType("cloudplatform:index:Service");
    req.setId("s1");
    req.setOlds(struct(olds));
    req.setOldInputs(struct(oldInputs));
    req.setNews(struct(news));
    req.setPreview(true);
    return (await call<pb.UpdateResponse>("update", req)).getProperties()!.toJavaScript() as Record<string, unknown>;
  };
  // A new image redeploys: the deploy outputs are unknown, the id-like ones stay, the new input shows.
  const image = await preview({ ...oldInputs, image: "nginx:2" });
  expect(image).toMatchObject({ image: "nginx:2", url: olds.url, regionLabel: "Cape Town", createdAt: olds.createdAt, port: 8080, suspension: "NONE" });
  for (const k of ["latestDeployId", "latestDeployStatus", "lastDeployedAt", "status", "health", "runtime", "framework"]) expect(image[k]).toBe(UNKNOWN);
  // A new timeout changes nothing the platform holds; a removed port is the platform's choice again.
  const timeout = await preview({ ...oldInputs, timeout: "5m" });
  expect(timeout).toMatchObject({ latestDeployId: "d1", status: "ACTIVE", url: olds.url, timeout: "5m", port: 8080 });
  const { port: _port, ...noPort } = oldInputs;
  expect(await preview(noPort)).toMatchObject({ port: UNKNOWN, latestDeployId: "d1" });
  // A rename changes the URL, which names the service (no subdomain here).
  expect(await preview({ ...oldInputs, name: "web-2" })).toMatchObject({ name: "web-2", url: UNKNOWN, latestDeployId: "d1" });

  const diff = new pb.DiffRequest();
  diff.setUrn(URN("Service", "web"));
  diff.setType("cloudplatform:index:Service");
  diff.setOlds(struct(olds));
  diff.setOldInputs(struct(oldInputs));
  diff.setNews(struct({ ...oldInputs, image: "nginx:2" }));
  const d = await call<pb.DiffResponse>("diff", diff);
  expect(d.getReplacesList()).toEqual([]);
  expect(d.getStablesList()).toEqual(expect.arrayContaining(["environmentId", "url", "regionLabel", "createdAt", "suspension"]));
  expect(d.getStablesList()).not.toContain("latestDeployId");
  expect(d.getStablesList()).not.toContain("image");
});

test("a key that reaches several workspaces: the error names the explicit Provider's workspaceId argument, or the stack's config for the default provider", async () => {
  const other = await serve();
  const c = new ResourceProviderClient(`127.0.0.1:${other.port}`, grpc.credentials.createInsecure());
  const callOther = <Res>(method: string, req: unknown) =>
    new Promise<Res>((resolve, reject) => (c as any)[method](req, (err: Error | null, res: Res) => (err ? reject(err) : resolve(res))));
  const createProject = async (providerName: string) => {
    const configure = new pb.ConfigureRequest();
    configure.setUrn(`urn:pulumi:dev::proj::pulumi:providers:cloudplatform::${providerName}`);
    configure.setName(providerName);
    configure.setArgs(struct({ apiKey: emu.keys.account, baseUrl: emu.baseUrl }));
    await callOther("configure", configure);
    const create = new pb.CreateRequest();
    create.setUrn(URN("Project", "p"));
    create.setType("cloudplatform:index:Project");
    create.setProperties(struct({ name: "p" }));
    return ((await callOther("create", create).then(() => undefined, (e) => e)) as grpc.ServiceError).details;
  };
  try {
    expect(await createProject("acct")).toMatch(
      /^The API key reaches 2 workspaces: .*\. Set the workspaceId argument of the Provider 'acct' \(new cloudplatform\.Provider\("acct", \{ workspaceId: "<id>", \.\.\. \}\)\), or give the resource a workspaceId$/,
    );
    expect(await createProject("default_0_1_0")).toMatch(/\. Set cloudplatform:workspaceId \(or CLOUDPLATFORM_WORKSPACE_ID\), or give the resource a workspaceId$/);
  } finally {
    c.close();
    other.server.forceShutdown();
  }
});

test("a secret input comes back secret from check, create, read and update, and an invoke with a secret argument answers a secret", async () => {
  const hidden = (value: unknown) => ({ [SIG]: SECRET_SIG, value });
  const urn = URN("Project", "hidden");
  const check = new pb.CheckRequest();
  check.setUrn(urn);
  check.setType("cloudplatform:index:Project");
  check.setNews(struct({ name: "hidden", description: hidden("classified v1") }));
  const checked = (await call<pb.CheckResponse>("check", check)).getInputs()!.toJavaScript() as any;
  expect(checked).toMatchObject({ name: "hidden", description: hidden("classified v1") });

  const create = new pb.CreateRequest();
  create.setUrn(urn);
  create.setType("cloudplatform:index:Project");
  create.setProperties(struct(checked));
  const created = await call<pb.CreateResponse>("create", create);
  const outs = created.getProperties()!.toJavaScript() as any;
  expect(outs.description).toEqual(hidden("classified v1"));
  expect(outs.name).toBe("hidden");

  const read = new pb.ReadRequest();
  read.setId(created.getId());
  read.setUrn(urn);
  read.setType("cloudplatform:index:Project");
  read.setProperties(created.getProperties());
  read.setInputs(struct(checked));
  const got = await call<pb.ReadResponse>("read", read);
  expect((got.getProperties()!.toJavaScript() as any).description).toEqual(hidden("classified v1"));
  expect((got.getInputs()!.toJavaScript() as any).description).toEqual(hidden("classified v1"));

  const update = new pb.UpdateRequest();
  update.setId(created.getId());
  update.setUrn(urn);
  update.setType("cloudplatform:index:Project");
  update.setOlds(created.getProperties());
  update.setNews(struct({ name: "hidden", description: hidden("classified v2") }));
  const updated = (await call<pb.UpdateResponse>("update", update)).getProperties()!.toJavaScript() as any;
  expect(updated.description).toEqual(hidden("classified v2"));

  const invoke = new pb.InvokeRequest();
  invoke.setTok("cloudplatform:index:getProject");
  invoke.setArgs(struct({ projectId: hidden(created.getId()) }));
  const result = (await call<pb.InvokeResponse>("invoke", invoke)).getReturn()!.toJavaScript() as any;
  expect(result.name).toEqual(hidden("hidden"));
  expect(result.description).toEqual(hidden("classified v2"));

  const del = new pb.DeleteRequest();
  del.setId(created.getId());
  del.setUrn(urn);
  del.setType("cloudplatform:index:Project");
  del.setProperties(struct(updated));
  await call("delete", del);
});

test("each kind is found by its token without loading the others: a stack of Projects loads one resource module", () => {
  const { resources } = require("../../provider/resources") as typeof import("../../provider/resources");
  for (const kind of Object.keys(resources)) expect(resources[kind].token).toBe(`cloudplatform:index:${kind}`);
  // A fresh process, as the engine starts the plugin: the catalogue stays unloaded until asked for.
  const script = `
    const { ProviderServer } = require("./dist/provider/plugin/server");
    const loaded = () => Object.keys(require.cache).filter((f) => /provider\\/resources\\/[a-zA-Z]+\\.js$/.test(f) && !/(index|framework|rules|waiter)\\.js$/.test(f)).map((f) => f.replace(/^.*\\//, ""));
    const before = loaded();
    const check = new ProviderServer().implementation().check;
    const pb = require("@pulumi/pulumi/proto/provider_pb");
    const { Struct } = require("google-protobuf/google/protobuf/struct_pb");
    const req = new pb.CheckRequest().setUrn("urn:pulumi:dev::proj::cloudplatform:index:Project::p").setType("cloudplatform:index:Project").setNews(Struct.fromJavaScript({ name: "p" }));
    check({ request: req }, (err) => { console.log(JSON.stringify({ err: err && err.message, before, after: loaded() })); });
  `;
  const out = require("node:child_process").execFileSync(process.execPath, ["-e", script], { cwd: require("node:path").join(__dirname, "../.."), encoding: "utf8" });
  const { err, before, after } = JSON.parse(out.trim().split("\n").pop()!);
  expect(err).toBeNull();
  expect(before).toEqual([]);
  expect(after).toEqual(["project.js"]);
});

test("read: nothing changed gives the state's inputs back as sent; a change replaces just that input, a rotated secret stays secret beside a plain value, and __drift names each by key", async () => {
  const hidden = (value: unknown) => ({ [SIG]: SECRET_SIG, value });
  const api = emu.client();
  const project = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "quiet" });
  const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "production" });
  const urn = URN("Service", "quiet");
  const check = new pb.CheckRequest();
  check.setUrn(urn);
  check.setType("cloudplatform:index:Service");
  check.setNews(struct({
    environmentId: env.id, name: "quiet", type: "WEB", image: "nginx:1", waitForDeploy: false, timeout: "90s",
    envVars: [{ key: "MODE", value: "calm" }, { key: "TOKEN", value: hidden("t0ken-one") }, { key: "DB_PASSWORD", value: "pw-0ne-value", secret: true }],
  }));
  const inputs = (await call<pb.CheckResponse>("check", check)).getInputs()!;
  const create = new pb.CreateRequest();
  create.setUrn(urn);
  create.setType("cloudplatform:index:Service");
  create.setProperties(inputs);
  const created = await call<pb.CreateResponse>("create", create);
  const read = new pb.ReadRequest();
  read.setId(created.getId());
  read.setUrn(urn);
  read.setType("cloudplatform:index:Service");
  read.setProperties(created.getProperties());
  read.setInputs(inputs);
  const quiet = await call<pb.ReadResponse>("read", read);
  expect(quiet.getInputs()!.toJavaScript()).toEqual(inputs.toJavaScript());
  expect((quiet.getProperties()!.toJavaScript() as any).__drift).toBeUndefined();

  // By hand: a plain value changed, both secrets rotated.
  await api.patch(`/v1/services/${created.getId()}/env-vars`, { envVars: [{ key: "MODE", value: "panic" }, { key: "TOKEN", value: "t0ken-two" }, { key: "DB_PASSWORD", value: "pw-tw0-value", secret: true }] });
  const drifted = await call<pb.ReadResponse>("read", read);
  const got = drifted.getInputs()!.toJavaScript() as any;
  expect(got.envVars).toEqual([
    { key: "DB_PASSWORD", value: hidden("pw-tw0-value"), scope: "ALL", secret: true },
    { key: "MODE", value: "panic", scope: "ALL", secret: false },
    { key: "TOKEN", value: hidden("t0ken-two"), scope: "ALL", secret: false },
  ]);
  // Every other input is the state's own, the provider-only timeout included.
  expect({ ...got, envVars: undefined }).toEqual({ ...(inputs.toJavaScript() as any), envVars: undefined });
  expect((drifted.getProperties()!.toJavaScript() as any).__drift).toEqual([
    { path: ["envVars", "DB_PASSWORD", "value"], kind: "update" },
    { path: ["envVars", "MODE", "value"], kind: "update" },
    { path: ["envVars", "TOKEN", "value"], kind: "update" },
  ]);
  await api.delete(`/v1/projects/${project.id}`);
});

test("the launcher starts node with V8's young generation capped, the same file serving as sh and as node's script", async () => {
  // As the engine runs it: the executable itself, whose first line is for sh (bench R-n: the plugin's peak RSS).
  const { spawn } = require("node:child_process") as typeof import("node:child_process");
  const { readFileSync } = require("node:fs") as typeof import("node:fs");
  const bin = require("node:path").join(__dirname, "../../bin/pulumi-resource-cloudplatform");
  const child = spawn(bin, [], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim()));
      child.once("exit", (code) => reject(new Error(`the plugin exited (${code})`)));
    });
    expect(port).toMatch(/^\d+$/);
    // exec: one process, node's, with the flag (no shell left waiting beside it).
    const argv = readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\0");
    expect(argv[0]).toMatch(/node$/);
    expect(argv).toContain("--max-semi-space-size=4");
    expect(argv).toContain(bin);
  } finally {
    child.kill();
  }
});
