// operations.ts: creates run as one operation of the resource's identity (derived keys), and once
// the handler's own create has answered, any later failure keeps the object in state.
import { Operations } from "../../provider/operations";
import { ResourceInitError } from "../../provider/resources/framework";
import { emulator, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

let emu: TestEmulator;
let ops: Operations;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  ops = new Operations({ apiKey: emu.apiKey, baseUrl: emu.baseUrl, workspaceId: emu.workspaceId });
});
afterAll(async () => {
  await ops.context().client.close();
  await emu.close();
});
beforeEach(async () => emu.control("POST", "/reset"));

const countOf = (table: string) => emu.emu.store.table(table).all().length;

test("a failed follow-up call after the create (suspending) leaves the service in state as created but broken", async () => {
  const project = await ops.create("Project", { name: "ops" }, { identity: "t/ops/Project/p" });
  const env = await ops.create("Environment", { projectId: project.id, name: "prod" }, { identity: "t/ops/Environment/e" });
  // Every suspend fails, retries included (a POST without a key is not retried anyway).
  await emu.control("POST", "/faults", { kind: "status", status: 500, method: "POST", pathRegex: "/suspend$" });
  const inputs = { environmentId: env.id, name: "web", type: "WEB", image: "nginx:1.27", suspended: true };
  const err = await failure(ops.create("Service", inputs, { identity: "t/ops/Service/web" }));
  expect(err).toBeInstanceOf(ResourceInitError);
  const svcId = emu.emu.store.table<any>("services").all()[0].id;
  expect(err.id).toBe(svcId);
  expect(err.message).toContain(`the object ${svcId} was created and is kept in state`);
  // The outputs known so far, read back from the platform.
  expect(err.properties).toMatchObject({ environmentId: env.id, name: "web", status: expect.any(String) });

  // The same create again (the next up, had the engine lost it) adopts it: no second service.
  await emu.control("DELETE", "/faults");
  const again = await ops.create("Service", inputs, { identity: "t/ops/Service/web" });
  expect(again.id).toBe(svcId);
  expect(countOf("services")).toBe(1);
});

test("a failure before the object exists stays a plain error", async () => {
  await emu.control("POST", "/faults", { kind: "status", status: 400, method: "POST", count: 1 });
  const err = await failure(ops.create("Project", { name: "nope" }, { identity: "t/ops/Project/q" }));
  expect(err).not.toBeInstanceOf(ResourceInitError);
  expect(countOf("projects")).toBe(0);
});

test("the next update continues a created-but-broken object of a kind with no update: it reads the object back", async () => {
  const project = await ops.create("Project", { name: "ops" }, { identity: "t/ops/Project/p" });
  // The create's own read, and the read that would fill in its outputs, both fail.
  await emu.control("POST", "/faults", { kind: "status", status: 500, method: "GET", pathRegex: "^/v1/environments/", count: 40 });
  const inputs = { projectId: project.id, name: "prod" };
  const err = await failure(ops.create("Environment", inputs, { identity: "t/ops/Environment/e" }));
  expect(err).toBeInstanceOf(ResourceInitError);
  expect(err.message).toContain("the next update continues it");
  expect(err.properties).toEqual(inputs); // nothing more was known
  await emu.control("DELETE", "/faults");
  // What the engine does for such a resource whose inputs did not change: an update.
  const continued = await ops.update("Environment", err.id, err.properties, inputs);
  expect(continued.outs).toMatchObject({ projectId: project.id, name: "prod", kind: "PROD", isPreview: false });
  // Gone meanwhile: the error says what to do.
  await ops.delete("Environment", err.id, continued.outs);
  expect((await failure(ops.update("Environment", err.id, continued.outs, inputs))).message).toBe(
    `Environment ${err.id} no longer exists; run \`pulumi refresh\` to drop it from state, then \`pulumi up\` makes it again`,
  );
});
