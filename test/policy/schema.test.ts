// The pack names only properties the schema has: each policy's declared reads, the properties its
// remediation names, and every property it actually reads while the cases run.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { PolicyResource } from "@pulumi/policy";
import { cloudPlatformPolicies, guardPolicies, kindOf } from "../../policy";
import { resourceArgs, runResource, runStack, stackArgs } from "./args";
import { resourceCases, stackCases } from "./cases";

const schema = JSON.parse(readFileSync(join(__dirname, "..", "..", "schema.json"), "utf8"));
/** Every property of a kind: inputs and outputs, of resources and components. */
function propertiesOf(kind: string): string[] {
  const r = schema.resources[`cloudplatform:index:${kind}`];
  if (!r) throw new Error(`schema.json has no resource ${kind}`);
  return [...Object.keys(r.inputProperties ?? {}), ...Object.keys(r.properties ?? {})];
}
/** Properties of the schema's object types (a CORS rule's allowedOrigins, an env var's key). */
const typeProperties = Object.values(schema.types as Record<string, { properties?: object }>).flatMap((t) => Object.keys(t.properties ?? {}));

describe.each(guardPolicies.map((p) => [p.name, p] as const))("%s", (_, policy) => {
  test("reads only properties the schema has", () => {
    for (const [kind, props] of Object.entries(policy.reads)) {
      const known = propertiesOf(kind);
      expect(props.filter((p) => !known.includes(p))).toEqual([]);
    }
  });

  test("its remediation names properties the schema has", () => {
    const named = [...policy.remediation.matchAll(/`(\w+)(?::[^`]*)?`/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    const known = new Set([...Object.keys(policy.reads).flatMap(propertiesOf), ...typeProperties, ...Object.keys(policy.defaults)]);
    expect(named.filter((n) => !known.has(n))).toEqual([]);
  });
});

/** Props that record each key a policy reads, by kind. */
function recording(seen: Map<string, Set<string>>, kind: string, props: Record<string, unknown>) {
  return new Proxy(props, {
    get(target, key, receiver) {
      if (typeof key === "string" && !key.startsWith("__")) {
        if (!seen.has(kind)) seen.set(kind, new Set());
        seen.get(kind)!.add(key);
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

test("while the cases run, each policy reads only the properties it declares", async () => {
  for (const def of guardPolicies) {
    const seen = new Map<string, Set<string>>();
    const policies = cloudPlatformPolicies(Object.fromEntries(guardPolicies.map((p) => [p.key, p === def ? "mandatory" : "disabled"])));
    for (const c of resourceCases) {
      const args = resourceArgs(c.kind, "r", c.props, "native", c.config);
      await runResource(policies, { ...args, props: recording(seen, c.kind, args.props) });
    }
    for (const c of stackCases) {
      const args = stackArgs(c.resources, "native", c.config);
      for (const r of args.resources) (r as PolicyResource).props = recording(seen, kindOf(r.type)!, r.props);
      await runStack(policies, args);
    }
    const undeclared = [...seen].flatMap(([kind, keys]) => [...keys].filter((k) => !(def.reads[kind] ?? []).includes(k)).map((k) => `${kind}.${k}`));
    expect({ policy: def.name, undeclared }).toEqual({ policy: def.name, undeclared: [] });
    expect(seen.size).toBeGreaterThan(0);
  }
});
