// pulumi-cloudplatform/testing/mocks: unit tests of a program with the provider's own checks.
// setCloudPlatformMocks() installs pulumi.runtime.setMocks: each cloudplatform resource of either
// SDK goes through the provider's real `check` (bad inputs fail the test with the message preview
// gives), and gets the outputs the platform fills in; functions answer from what the test declares.
import * as pulumi from "@pulumi/pulumi";
import { FUNCTION_ANSWERS, type FunctionAnswers } from "../sdk/functions";
import { type FunctionAnswer, createMockPlatform } from "./mockPlatform";
import type { Made } from "./platform";

export { CREATED_AT, DEFAULT_REGION, PLATFORM_DOMAIN, uuidFrom } from "./platform";
export { checkInputs, type FunctionAnswer } from "./mockPlatform";

export interface CloudPlatformMocksOptions {
  project?: string;
  stack?: string;
  /** Run as a preview (pulumi.runtime.isDryRun()); default false. */
  preview?: boolean;
  /** Answers of the functions, by name (`getProject`) or token. Objects the program makes answer too (getProject of its Project's id). */
  functions?: Record<string, FunctionAnswer>;
  /** Mocks for other providers' resources and calls; without them their inputs come back as outputs. */
  others?: pulumi.runtime.Mocks;
}

export interface CloudPlatformMocks {
  /** Every cloudplatform object made so far. */
  made(): (Made & { name: string; type: string })[];
}

export async function setCloudPlatformMocks(opts: CloudPlatformMocksOptions = {}): Promise<CloudPlatformMocks> {
  const project = opts.project ?? "project";
  const stack = opts.stack ?? "stack";
  const platform = createMockPlatform({ project, stack, functions: opts.functions });
  const answer: FunctionAnswers = (token, args) => platform.call(token, args as Record<string, unknown>);
  (globalThis as { [FUNCTION_ANSWERS]?: FunctionAnswers })[FUNCTION_ANSWERS] = answer;
  await pulumi.runtime.setMocks(
    {
      async newResource(args) {
        const r = await platform.newResource({ type: args.type, name: args.name, inputs: args.inputs, id: args.id, custom: args.custom });
        if (r) return r;
        return opts.others ? opts.others.newResource(args) : { id: args.custom ? `${args.name}_id` : undefined, state: args.inputs };
      },
      async call(args) {
        if (args.token.startsWith("cloudplatform:")) return platform.call(args.token, args.inputs);
        return opts.others ? opts.others.call(args) : args.inputs;
      },
    },
    project,
    stack,
    opts.preview ?? false,
  );
  return { made: platform.made };
}

/** Removes the function answers installed by setCloudPlatformMocks (the runtime's mocks stay until set again). */
export function clearCloudPlatformMocks(): void {
  delete (globalThis as { [FUNCTION_ANSWERS]?: FunctionAnswers })[FUNCTION_ANSWERS];
}

/**
 * Why the engine refused `resource` (check's message), or undefined when it registered. Every
 * output of a refused resource fails with the same error; this takes them all, so a test that
 * expects the failure does not end with unhandled rejections.
 */
export async function registrationError(resource: pulumi.Resource): Promise<string | undefined> {
  const outputs = Object.values(resource).filter((v): v is pulumi.Output<unknown> => pulumi.Output.isInstance(v));
  for (const o of outputs) {
    const impl = o as unknown as { isKnown: Promise<boolean>; isSecret: Promise<boolean> };
    impl.isKnown.catch(() => undefined);
    impl.isSecret.catch(() => undefined);
  }
  const results = await Promise.allSettled(outputs.map((o) => (o as unknown as { promise(): Promise<unknown> }).promise()));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  return failed ? String(failed.reason?.message ?? failed.reason) : undefined;
}
