// Construct: the plugin builds a component (VerifiedMailDomain, VerifiedCustomDomain) the way a
// program would, through the engine's resource monitor, from the native SDK's classes. The steps
// and pieces are @pulumi/pulumi's own provider server's (provider/server.js): a fresh runtime
// store per call, the runtime pointed at the request's monitor, the inputs and their dependencies
// read with its deserializeInputs, the state written with its serializeResourceProperties. Loaded
// on the first Construct only, so a plugin serving plain resources never loads the runtime.
import * as pulumi from "@pulumi/pulumi";
import * as pb from "@pulumi/pulumi/proto/provider_pb";
import * as rpc from "@pulumi/pulumi/runtime/rpc";
import * as runtimeConfig from "@pulumi/pulumi/runtime/config";
import * as settings from "@pulumi/pulumi/runtime/settings";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as native from "../../sdk/native";
import { buildVerifiedCustomDomain, buildVerifiedMailDomain } from "../../sdk/components";

// Internal pieces of the SDK's provider server, not in its type declarations.
const internal = {
  state: require("@pulumi/pulumi/runtime/state") as { withLocalStorage<T>(fn: () => Promise<T>): Promise<T> },
  settings: settings as unknown as { awaitFeatureSupport(): Promise<void>; waitForRPCs(): Promise<void> },
  server: require("@pulumi/pulumi/provider/server") as {
    deserializeInputs(inputs: Struct | undefined, deps: Map<string, pb.ConstructRequest.PropertyDependencies>): Promise<pulumi.Inputs>;
  },
  resource: require("@pulumi/pulumi/runtime/resource") as { hookBindingFromProto(binding: unknown): pulumi.ResourceHookBinding | undefined },
};

type Built = { urn: pulumi.Output<string>; state: pulumi.Inputs };

/** A component of any token, whose outputs the builder registers. */
class Component extends pulumi.ComponentResource {
  finish(state: pulumi.Inputs): Built {
    this.registerOutputs(state);
    return { urn: this.urn, state };
  }
}

/** An Output's value, as the SDK's server awaits it (the method is internal). */
const settled = <T>(o: pulumi.Output<T>): Promise<T> => (o as unknown as { promise(): Promise<T> }).promise();
type Builder = (name: string, inputs: pulumi.Inputs, opts: pulumi.ComponentResourceOptions) => Built;

/** Each component: a ComponentResource of its token, its children from the shared builder, its outputs and children as state. */
const builders: Record<string, Builder> = {
  "cloudplatform:index:VerifiedMailDomain": (name, inputs, opts) => {
    const self = new Component("cloudplatform:index:VerifiedMailDomain", name, {}, opts);
    const parts = buildVerifiedMailDomain(self, name, inputs as never, native);
    return self.finish({ ...parts.outputs, mailDomain: parts.mailDomain, recordSet: parts.recordSet, verification: parts.verification });
  },
  "cloudplatform:index:VerifiedCustomDomain": (name, inputs, opts) => {
    const self = new Component("cloudplatform:index:VerifiedCustomDomain", name, {}, opts);
    const parts = buildVerifiedCustomDomain(self, name, inputs as never, native);
    return self.finish({ ...parts.outputs, customDomain: parts.customDomain, recordSet: parts.recordSet, verification: parts.verification });
  },
};

export const componentTokens = Object.keys(builders);

// A failure inside the runtime (a child's registration refused, say) can surface as a rejection
// nobody awaits: while a Construct runs, it fails the calls in flight (which of them caused it
// cannot be told; its message names the resource) instead of the plugin process. With none in
// flight the handlers are off, and Node's own behaviour applies.
const inFlight = new Set<(err: unknown) => void>();
const failAll = (err: unknown) => inFlight.forEach((fail) => fail(err));
function track(fail: (err: unknown) => void): () => void {
  if (inFlight.size === 0) {
    process.on("unhandledRejection", failAll);
    process.on("uncaughtException", failAll);
  }
  inFlight.add(fail);
  return () => {
    inFlight.delete(fail);
    if (inFlight.size === 0) {
      process.off("unhandledRejection", failAll);
      process.off("uncaughtException", failAll);
    }
  };
}

/** Builds the component the request names, and answers with its URN and state. */
export function construct(req: pb.ConstructRequest, engineAddress: string | undefined): Promise<pb.ConstructResponse> {
  const build = builders[req.getType()];
  if (!build) return Promise.reject(new Error(`cloudplatform: unknown component type '${req.getType()}'`));
  if (!engineAddress) return Promise.reject(new Error("cloudplatform: Construct needs the engine's address, which the engine passes when it starts the plugin"));
  return new Promise<pb.ConstructResponse>((resolve, reject) => {
    const untrack = track(reject);
    internal.state
      .withLocalStorage(async () => {
        settings.resetOptions(req.getProject(), req.getStack(), req.getParallel(), engineAddress, req.getMonitorendpoint(), req.getDryrun(), req.getOrganization());
        await internal.settings.awaitFeatureSupport();
        runtimeConfig.setAllConfig(Object.fromEntries(req.getConfigMap().entries()), req.getConfigsecretkeysList());
        const inputs = await internal.server.deserializeInputs(req.getInputs(), req.getInputdependenciesMap() as never);
        const built = build(req.getName(), inputs, componentOptions(req));
        const res = new pb.ConstructResponse();
        res.setUrn(await settled(built.urn));
        const [state, stateDeps] = await rpc.serializeResourceProperties(`construct(${req.getType()}, ${req.getName()})`, built.state);
        for (const [key, deps] of stateDeps) {
          const urns = new pb.ConstructResponse.PropertyDependencies();
          urns.setUrnsList(await Promise.all([...deps].map((r) => settled(r.urn))));
          res.getStatedependenciesMap().set(key, urns);
        }
        res.setState(Struct.fromJavaScript(state));
        await internal.settings.waitForRPCs();
        return res;
      })
      .then(resolve, reject)
      .finally(untrack);
  });
}

/** The component's resource options, rebuilt from the request as the SDK's provider server does. */
function componentOptions(req: pb.ConstructRequest): pulumi.ComponentResourceOptions {
  const providers: Record<string, pulumi.ProviderResource> = {};
  for (const [pkg, ref] of req.getProvidersMap().entries()) providers[pkg] = new pulumi.DependencyProviderResource(ref);
  const aliases: (string | pulumi.Alias)[] = req.getAliasesList().map((a) => {
    if (a.hasUrn()) return a.getUrn();
    const spec = a.getSpec()!;
    const alias: pulumi.Alias = {};
    if (spec.getName()) alias.name = spec.getName();
    if (spec.getProject()) alias.project = spec.getProject();
    if (spec.getStack()) alias.stack = spec.getStack();
    if (spec.hasParenturn()) alias.parent = spec.getParenturn();
    else if (spec.getNoparent()) alias.parent = pulumi.rootStackResource;
    return alias;
  });
  const timeouts = req.getCustomtimeouts();
  return {
    aliases,
    dependsOn: req.getDependenciesList().map((urn) => new pulumi.DependencyResource(urn)),
    protect: req.getProtect(),
    providers,
    parent: req.getParent() ? new pulumi.DependencyResource(req.getParent()) : undefined,
    ignoreChanges: req.getIgnorechangesList(),
    replaceOnChanges: req.getReplaceonchangesList(),
    customTimeouts: timeouts ? { create: timeouts.getCreate() || undefined, update: timeouts.getUpdate() || undefined, delete: timeouts.getDelete() || undefined } : undefined,
    retainOnDelete: req.getRetainondelete(),
    deletedWith: req.getDeletedwith() ? new pulumi.DependencyResource(req.getDeletedwith()) : undefined,
    hooks: internal.resource.hookBindingFromProto(req.getResourceHooks()),
  };
}
