// The native provider: Pulumi's ResourceProvider gRPC service over Operations, the same module the
// dynamic adapter (host.ts) runs on. Nothing here knows a resource: tokens map to handler kinds,
// and the schema says which properties are secret.
import * as grpc from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb";
import { LogRequest, LogSeverity } from "@pulumi/pulumi/proto/engine_pb";
import { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import * as pb from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { resolveConfig } from "../config";
import { functions } from "../functions";
import { Operations, type OperationOptions } from "../operations";
import { DRIFT_OUTPUT } from "../keyed";
import { loadAll, resources } from "../resources";
import { UNKNOWN, type ResourceDefinition } from "../resources/framework";
import { packageVersion } from "../version";
import { configDiff, configFailures, configFrom } from "./config";
import { toDiffResponse } from "./diff";
import { grpcError } from "./errors";
import { containsSecrets, fromStruct, type Props, requestSecrets, type SecretSpec, toStruct } from "./values";

interface Served {
  kind: string;
  def: ResourceDefinition;
}

// The plugin serves the whole catalogue, each kind's module loaded on its first request (a stack
// of a few kinds holds only those: the plugin's memory, bench/README.md); functions load all.
const RESOURCE_TOKEN = "cloudplatform:index:";
let functionsByToken: Map<string, (typeof functions)[string]> | undefined;
function functionOf(token: string) {
  if (!functionsByToken) {
    loadAll();
    functionsByToken = new Map(Object.values(functions).map((f) => [f.token, f]));
  }
  return functionsByToken.get(token);
}

function served(type: string, urn: string): Served {
  // The request's type is empty for older engines; the URN's last type segment carries it too.
  const token = type || urn.split("::")[2]?.split("$").pop() || "";
  const kind = token.startsWith(RESOURCE_TOKEN) ? token.slice(RESOURCE_TOKEN.length) : "";
  const def = Object.prototype.hasOwnProperty.call(resources, kind) ? resources[kind] : undefined;
  if (!def || def.token !== token) throw new Error(`cloudplatform: unknown resource type '${token}'`);
  return { kind, def };
}

/** Runs a handler for a unary RPC; any error goes back as the engine expects it. */
function unary<Req, Res>(fn: (req: Req) => Promise<Res>, errorOpts?: (req: Req) => Parameters<typeof grpcError>[1]) {
  return (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => {
    fn(call.request).then(
      (res) => callback(null, res),
      (err) => callback(grpcError(err, errorOpts?.(call.request)) as grpc.ServerErrorResponse),
    );
  };
}

export class ProviderServer {
  #ops: Operations;
  #engine?: EngineClient;
  #engineAddress?: string;

  constructor(engineAddress?: string, env: NodeJS.ProcessEnv = process.env) {
    this.#ops = new Operations(resolveConfig(() => undefined, env));
    this.#engineAddress = engineAddress;
    if (engineAddress) this.#engine = new EngineClient(engineAddress, grpc.credentials.createInsecure());
  }

  /** A progress line shown by the engine against the resource `urn`. */
  #log(urn: string, message: string, severity = LogSeverity.INFO): void {
    if (!this.#engine) return;
    const req = new LogRequest();
    req.setSeverity(severity);
    req.setMessage(message);
    req.setUrn(urn);
    this.#engine.log(req, () => {});
  }

  #op(urn: string, timeoutSeconds: number): OperationOptions {
    return {
      identity: urn,
      timeoutMs: timeoutSeconds > 0 ? Math.round(timeoutSeconds * 1000) : undefined,
      log: (m) => this.#log(urn, m),
    };
  }

  implementation(): grpc.UntypedServiceImplementation {
    return {
      handshake: unary(async () => {
        const res = new pb.ProviderHandshakeResponse();
        // Secrets are accepted: the engine asks it of a plugin that constructs components (values.ts keeps them secret).
        res.setAcceptSecrets(true);
        res.setAcceptResources(false);
        res.setAcceptOutputs(false);
        return res;
      }),
      getPluginInfo: unary(async () => new PluginInfo().setVersion(packageVersion())),
      getSchema: unary(async () => new pb.GetSchemaResponse().setSchema(schemaText())),
      cancel: unary(async () => new Empty()),

      checkConfig: unary(async (req: pb.CheckRequest) => {
        const news = fromStruct(req.getNews());
        const failures = configFailures(news);
        const res = new pb.CheckResponse();
        if (failures.length) res.setFailuresList(failures.map(checkFailure));
        else res.setInputs(toStruct(news, { keys: ["apiKey"], from: requestSecrets(undefined, req.getNews()) }));
        return res;
      }),
      diffConfig: unary(async (req: pb.DiffRequest) => toDiffResponse(configDiff(fromStruct(req.getOlds()), fromStruct(req.getNews())))),
      configure: unary(async (req: pb.ConfigureRequest) => {
        this.#ops = new Operations(configFrom(req));
        const res = new pb.ConfigureResponse();
        res.setAcceptsecrets(true);
        res.setSupportspreview(true);
        res.setAcceptresources(false);
        res.setAcceptoutputs(false);
        return res;
      }),

      check: unary(async (req: pb.CheckRequest) => {
        const { kind, def } = served(req.getType(), req.getUrn());
        const who = { identity: req.getUrn(), name: req.getName() || req.getUrn().split("::").pop() };
        const r = await this.#ops.check(kind, fromStruct(req.getOlds()), fromStruct(req.getNews()), who);
        const res = new pb.CheckResponse();
        if (r.failures?.length) res.setFailuresList(r.failures.map(checkFailure));
        else res.setInputs(toStruct(r.inputs as Props, secretSpec(def, r.inputs as Props, [], req.getNews())));
        return res;
      }),

      diff: unary(async (req: pb.DiffRequest) => {
        const { kind } = served(req.getType(), req.getUrn());
        return toDiffResponse(await this.#ops.diff(kind, req.getId(), fromStruct(req.getOlds()), fromStruct(req.getNews()), oldInputsOf(req)));
      }),

      create: unary(
        async (req: pb.CreateRequest) => {
          const { kind, def } = served(req.getType(), req.getUrn());
          const inputs = fromStruct(req.getProperties());
          const res = new pb.CreateResponse();
          if (req.getPreview()) {
            const outs = previewOutputs(def, inputs);
            res.setProperties(toStruct(outs, secretSpec(def, outs, def.secretOutputs, req.getProperties())));
            return res;
          }
          const { id, outs } = await this.#ops.create(kind, inputs, this.#op(req.getUrn(), req.getTimeout()));
          res.setId(id);
          res.setProperties(toStruct(outs, secretSpec(def, outs, def.secretOutputs, req.getProperties())));
          return res;
        },
        (req) => ({ inputs: fromStruct(req.getProperties()), secrets: errorSecrets(req.getType(), req.getUrn(), req.getProperties()) }),
      ),

      read: unary(async (req: pb.ReadRequest) => {
        const { kind, def } = served(req.getType(), req.getUrn());
        const state = req.getInputs();
        const declared = state && state.getFieldsMap().getLength() > 0 ? fromStruct(state) : undefined;
        const r = await this.#ops.read(kind, req.getId(), fromStruct(req.getProperties()), this.#op(req.getUrn(), req.getTimeout()), declared);
        const res = new pb.ReadResponse();
        // No id: the object is gone, and the engine drops it from state.
        if (!r.id) return res;
        res.setId(r.id);
        const outs = r.drift?.length ? { ...r.props, [DRIFT_OUTPUT]: r.drift } : r.props;
        res.setProperties(toStruct(outs, secretSpec(def, outs, def.secretOutputs, req.getProperties(), req.getInputs())));
        // Nothing changed: the state's inputs go back as the engine sent them (secrets and all), so
        // the refresh changes nothing. Without inputs in the request (an older engine), none go back.
        if (r.unchanged) {
          if (state) res.setInputs(state);
        } else if (r.inputs) {
          res.setInputs(toStruct(r.inputs, secretSpec(def, r.inputs, def.secretOutputs, req.getProperties(), req.getInputs())));
        }
        return res;
      }),

      update: unary(
        async (req: pb.UpdateRequest) => {
          const { kind, def } = served(req.getType(), req.getUrn());
          const olds = fromStruct(req.getOlds());
          const news = fromStruct(req.getNews());
          const res = new pb.UpdateResponse();
          if (req.getPreview()) {
            const outs = await this.#ops.previewUpdate(kind, olds, news, oldInputsOf(req));
            res.setProperties(toStruct(outs, secretSpec(def, outs, def.secretOutputs, req.getOlds(), req.getNews())));
            return res;
          }
          const { outs } = await this.#ops.update(kind, req.getId(), olds, news, this.#op(req.getUrn(), req.getTimeout()));
          res.setProperties(toStruct(outs, secretSpec(def, outs, def.secretOutputs, req.getNews())));
          return res;
        },
        (req) => ({ inputs: fromStruct(req.getNews()), secrets: errorSecrets(req.getType(), req.getUrn(), req.getNews()) }),
      ),

      delete: unary(async (req: pb.DeleteRequest) => {
        const { kind } = served(req.getType(), req.getUrn());
        await this.#ops.delete(kind, req.getId(), fromStruct(req.getProperties()), this.#op(req.getUrn(), req.getTimeout()));
        return new Empty();
      }),

      // Components: built through the engine's monitor from the native SDK (construct.ts, loaded on first use).
      construct: unary(async (req: pb.ConstructRequest) => (require("./construct") as typeof import("./construct")).construct(req, this.#engineAddress)),

      invoke: unary(async (req: pb.InvokeRequest) => {
        const fn = functionOf(req.getTok());
        if (!fn) throw new Error(`cloudplatform: unknown function '${req.getTok()}'`);
        const result = await this.#ops.invoke(fn, fromStruct(req.getArgs()));
        // A result computed from a secret argument is secret as a whole, as the engine would make it.
        const secretArgs = containsSecrets(req.getArgs()?.toJavaScript());
        return new pb.InvokeResponse().setReturn(toStruct(result, secretArgs ? Object.keys(result) : fn.secretOutputs));
      }),
    };
  }
}

/** The inputs of the last update, which engines send beside the old outputs (older ones do not). */
function oldInputsOf(req: pb.DiffRequest | pb.UpdateRequest): Props | undefined {
  const s = req.getOldInputs();
  return s ? fromStruct(s) : undefined;
}

/** A response's secrets: the resource's own (whole properties, nested values) and what the request held as secret. */
function secretSpec(def: ResourceDefinition, props: Props | undefined, keys: readonly string[] | undefined, ...from: (Struct | undefined)[]): SecretSpec {
  return { keys: keys ?? [], paths: props && def.secretPaths ? def.secretPaths(props) : [], from: requestSecrets(def.keyedLists, ...from) };
}

function errorSecrets(type: string, urn: string, request: Struct | undefined): ((props: Props) => SecretSpec) | undefined {
  try {
    const { def } = served(type, urn);
    return (props) => secretSpec(def, props, def.secretOutputs, request);
  } catch {
    return undefined;
  }
}

/** What a preview of a create shows: the inputs, and every other output as not known yet. */
function previewOutputs(def: ResourceDefinition, inputs: Props): Props {
  const out: Props = {};
  for (const key of Object.keys(def.outputs.shape)) out[key] = UNKNOWN;
  return { ...out, ...inputs };
}

function checkFailure(f: { property: string; reason: string }): pb.CheckFailure {
  return new pb.CheckFailure().setProperty(f.property).setReason(f.reason);
}

let schema: string | undefined;
function schemaText(): string {
  // schema.json sits at the package root, beside dist/.
  schema ??= readFileSync(join(__dirname, "..", "..", ...(__dirname.includes(join("dist", "provider")) ? [".."] : []), "schema.json"), "utf8");
  return schema;
}

/** Serves the provider on 127.0.0.1 and resolves with the port. */
export async function serve(engineAddress?: string): Promise<{ port: number; server: grpc.Server }> {
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(ResourceProviderService as unknown as grpc.ServiceDefinition, new ProviderServer(engineAddress).implementation());
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { port, server };
}
