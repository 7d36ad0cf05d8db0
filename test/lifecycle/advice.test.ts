// Advice that works: an error that tells the user what to do is followed, through the real CLI,
// and finishes the job. An environment created but not read back (created but broken: "the next
// update continues it"), then a deploy that outlasts its timeout ("raise `timeout`"); a destroy
// refused by a bucket holding objects, after which `up` brings back what it had deleted, the
// VerifiedCustomDomain among them; a complaint suppression the program drops (retainOnDelete).
// The forceDestroy advice on a replacement is followed in
// bucket.test.ts, a verification's in custom-domain.test.ts and mail-domain.test.ts.
import { emulator, type TestEmulator } from "../support/emulator";
import { join } from "node:path";
import { changes, EXAMPLES, expectNoDrift, testStack } from "../support/stack";
import { ofKind, stateResources } from "../support/tracking";

jest.setTimeout(300_000);

let emu: TestEmulator;
beforeAll(async () => {
  // An image deploys in about 4 s.
  emu = await emulator({ settings: { speed: 0.3 } });
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

test("created but broken, then a deploy past its timeout: each error's advice, followed, finishes the job", async () => {
  const s = await testStack(emu, "durable", { mode: "service", tag: "advice", timeout: "1s" });
  const api = emu.client();
  try {
    // The environment is made, but reading it back fails (every retry): kept in state, with the advice.
    await emu.control("POST", "/faults", { kind: "status", status: 500, method: "GET", pathRegex: "^/v1/environments/", count: 40 });
    const broken = await s.stack.up().then(() => undefined, (e: Error) => e);
    expect(broken?.message).toMatch(/the object \S+ was created and is kept in state; the next update continues it/);
    const env = ofKind(await stateResources(s), "Environment")[0];
    expect(env.initErrors?.length).toBeGreaterThan(0);
    await emu.control("DELETE", "/faults");

    // Doing so: the next up continues the environment (a kind with no update: it is read back). The
    // service's deploy outlasts its 1 s timeout, and that error says what to do in turn.
    const late = await s.stack.up().then(() => undefined, (e: Error) => e);
    expect(late?.message).toMatch(/web: deploy \S+ was still (QUEUED|BUILDING|DEPLOYING) after 1s; raise `timeout`, or set waitForDeploy: false to not wait/);
    const rs = await stateResources(s);
    // (read back: the outputs the failed create could not record)
    expect(ofKind(rs, "Environment")[0]).toMatchObject({ id: env.id, outputs: expect.objectContaining({ isPreview: false, createdAt: expect.any(String) }) });
    expect(ofKind(rs, "Environment")[0].initErrors ?? []).toEqual([]);
    const web = ofKind(rs, "Service")[0];
    expect(web.initErrors?.length).toBeGreaterThan(0);

    // Doing that: a longer timeout, and the next up continues the same service to RUNNING.
    await s.stack.setConfig("timeout", { value: "2m" });
    expect(changes(await s.stack.up())).toEqual({ update: 1 });
    const after = ofKind(await stateResources(s), "Service")[0];
    expect(after).toMatchObject({ id: web.id, outputs: expect.objectContaining({ latestDeployStatus: "RUNNING" }) });
    expect(after.initErrors ?? []).toEqual([]);
    expect(await api.list(`/v1/environments/${env.id}/services`)).toHaveLength(1);
    await expectNoDrift(s);

    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});

test("a destroy refused by a bucket that holds objects, then the advised up: the deleted resources come back, VerifiedCustomDomain included, and destroy finishes", async () => {
  await emu.control("POST", "/dns/delegations", { domain: "advice-site.test" });
  const s = await testStack(emu, join(EXAMPLES, "static-site"), { domain: "advice-site.test", timeout: "60s", forceDestroy: "false" });
  try {
    const up = await s.stack.up();
    await emu.control("POST", "/storage/objects", { bucket: up.outputs.assetsBucket.value, key: "logo.svg", content: "<svg/>" });
    const refused = await s.stack.destroy().then(() => undefined, (e: Error) => e);
    expect(refused?.message).toContain(`bucket ${up.outputs.assetsBucket.value} still holds objects`);
    expect(refused?.message).toContain("set forceDestroy: true and run `pulumi up` (then `pulumi destroy`, if you are destroying)");
    expect(ofKind(await stateResources(s), "CustomDomain")).toEqual([]); // the destroy got that far

    await s.stack.setConfig("forceDestroy", { value: "true" });
    const again = await s.stack.up();
    expect(again.outputs.customDomain.value).toBe("https://www.advice-site.test (ACTIVE)");
    await expectNoDrift(s);
    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});

test("a complaint suppression cannot be deleted: retainOnDelete, as the error says, lets the program drop it", async () => {
  const s = await testStack(emu, "durable", { mode: "suppression", address: "angry@example.com" });
  try {
    await s.stack.up();
    // The recipient complains later: the platform never lifts that suppression.
    const rows = emu.emu.store.table<{ id: string; address: string }>("mailSuppressions");
    rows.update(rows.all().find((r) => r.address === "angry@example.com")!.id, { reason: "complaint" } as never);
    await s.stack.setConfig("keep", { value: "false" });
    const refused = await s.stack.up().then(() => undefined, (e: Error) => e);
    expect(refused?.message).toContain("or set `retainOnDelete: true` on it before removing it from the program");

    await s.stack.setAllConfig({ keep: { value: "true" }, retain: { value: "true" } });
    await s.stack.up();
    await s.stack.setConfig("keep", { value: "false" });
    await s.stack.up();
    expect(ofKind(await stateResources(s), "Suppression")).toEqual([]);
    expect((await emu.client().list<any>("/v1/suppressions")).map((x) => `${x.address} ${x.reason}`)).toEqual(["angry@example.com complaint"]);
    await emu.control("DELETE", "/mail/suppressions");
    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
