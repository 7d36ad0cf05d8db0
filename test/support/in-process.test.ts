// Programs run in the test's process (scripts/pulumi-env.ts, openStack({ inProcess: true })) against
// stand-in engines on ports the test chooses: the condition behind `14 UNAVAILABLE: No connection
// established`, made on purpose. An operation's program makes a call after its engine has gone (a
// preview that failed while the program still registered), so gRPC's connection to that port backs
// off; the system hands the same port to the next operation's engine; that operation's program must
// still reach it. Without engineClients' own connections per channel, its first call fails at once.
import * as grpc from "@grpc/grpc-js";
import type { PulumiFn, Stack } from "@pulumi/pulumi/automation";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { engineClients } from "../../scripts/pulumi-env";

/* eslint-disable @typescript-eslint/no-require-imports */
const engineRpc = require("@pulumi/pulumi/proto/engine_grpc_pb");
const enginePb = require("@pulumi/pulumi/proto/engine_pb");
const languagePb = require("@pulumi/pulumi/proto/language_pb");
const resourceRpc = require("@pulumi/pulumi/proto/resource_grpc_pb");
const resourcePb = require("@pulumi/pulumi/proto/resource_pb");
const { LanguageServer } = require("@pulumi/pulumi/automation/server");
const settings = require("@pulumi/pulumi/runtime/settings");

interface Engine { port: number; calls: string[]; stop(): void }

/** The engine's monitor and engine services, as the CLI serves them to a program, on `port` (0: any). */
function engine(port: number): Promise<Engine> {
  const server = new grpc.Server();
  const calls: string[] = [];
  const answer = (name: string, reply: (req: any) => unknown) => (call: { request: any }, cb: (e: null, r: unknown) => void) => {
    calls.push(name);
    cb(null, reply(call.request));
  };
  server.addService(resourceRpc.ResourceMonitorService, {
    supportsFeature: answer("supportsFeature", () => new resourcePb.SupportsFeatureResponse().setHassupport(true)),
    registerResource: answer("registerResource", (r) => new resourcePb.RegisterResourceResponse().setUrn(`urn:pulumi:s::p::${r.getType()}::${r.getName()}`)),
    registerResourceOutputs: answer("registerResourceOutputs", () => new Empty()),
    signalAndWaitForShutdown: answer("signalAndWaitForShutdown", () => new Empty()),
  });
  server.addService(engineRpc.EngineService, {
    log: answer("log", () => new Empty()),
    getRootResource: answer("getRootResource", () => new enginePb.GetRootResourceResponse()),
    setRootResource: answer("setRootResource", () => new enginePb.SetRootResourceResponse()),
  });
  return new Promise((resolve, reject) => server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => {
    if (err) reject(err);
    else resolve({ port: bound, calls, stop: () => server.forceShutdown() });
  }));
}

/** What the CLI asks of the program's language host for one preview: run it against `e`. */
function run(host: { run: Function }, e: Engine): Promise<string> {
  const req = new languagePb.RunRequest();
  req.setProject("p");
  req.setStack("s");
  req.setDryrun(true);
  req.setParallel(4);
  req.setMonitorAddress(`127.0.0.1:${e.port}`);
  req.setArgsList([`127.0.0.1:${e.port}`]);
  return new Promise((resolve) => host.run({ request: req }, (err: Error | null, res: any) => resolve(err ? err.message : res.getError() || "ran")));
}

const supportsSecrets = (monitor: any) => new Promise<grpc.ServiceError | null>((resolve) =>
  monitor.supportsFeature(new resourcePb.SupportsFeatureRequest().setId("secrets"), (err: grpc.ServiceError | null) => resolve(err)));

test("a program still reaches its engine on a port whose previous engine's connection is backing off, and each operation's clients are closed", async () => {
  const runs = engineClients(require);
  const monitors: any[] = [];
  const program: PulumiFn = async () => {
    monitors.push(settings.getMonitor());
  };
  const host = new LanguageServer(runs.tracked(program));
  // The operations of one stack: each runs the program once against an engine of its own.
  let next: Engine | undefined;
  const stack = { up: () => run(host, next!), preview: () => run(host, next!) } as unknown as Stack;
  for (const op of ["refresh", "previewRefresh", "destroy", "import"]) (stack as any)[op] = stack.up;
  runs.closedAfterEachOperation(stack);

  const first = await engine(0);
  next = first;
  expect(await stack.preview()).toBe("ran");
  first.stop();
  expect(first.calls).toContain("registerResource");
  // Its clients are closed once the operation ends.
  expect(monitors[0].getChannel().getConnectivityState(false)).toBe(grpc.connectivityState.SHUTDOWN);

  // A second program, in a run the harness did not close (a call it makes after its engine has gone).
  const before = await engine(0);
  expect(await run(host, before)).toBe("ran");
  before.stop();
  expect((await supportsSecrets(monitors[1]))?.code).toBe(grpc.status.UNAVAILABLE);
  expect(monitors[1].getChannel().getConnectivityState(false)).toBe(grpc.connectivityState.TRANSIENT_FAILURE);

  // The next operation's engine is handed the same port while that connection backs off.
  const again = await engine(before.port);
  next = again;
  try {
    expect(await stack.up()).toBe("ran");
    expect(again.calls).toEqual(expect.arrayContaining(["supportsFeature", "registerResource", "signalAndWaitForShutdown"]));
  } finally {
    again.stop();
    monitors[1].close();
  }
});
