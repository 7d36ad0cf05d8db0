// The resource framework's helpers: check (unknown-tolerant, naming property and rule), diff
// (update vs replace), deep equality, and the 404 helpers.
import { z } from "zod";
import { ApiError, ConflictError } from "../../provider/client";
import {
  checkWith, compact, deleteIgnoringNotFound, detailPaths, diffWith, findOrUndefined, isImport, isUnknown, openEnum,
  type PropertyChange, ResourceInitError, same, UNKNOWN,
} from "../../provider/resources/framework";
import { name, regionKey, text } from "../../provider/resources/rules";
import { projectInputs } from "../../provider/resources/project";

const schema = z.object({
  name: name("n"),
  description: text(20, "d").optional(),
  region: regionKey.optional(),
  replicas: z.number().int().min(1, "must be at least 1").default(1),
  ports: z.array(z.number().int().max(65535, "must be at most 65535")).optional(),
  tags: z.record(z.string(), z.string()).optional(),
  kind: openEnum(["WEB", "WORKER"]).optional(),
});
type Inputs = z.infer<typeof schema>;

const notFound = () => ApiError.from({ status: 404, body: { message: "gone" }, requestId: "r", method: "GET", path: "/x" });

describe("checkWith", () => {
  test("valid inputs come back parsed, with defaults and without undefined keys", () => {
    const r = checkWith<Inputs>(schema, { name: "web", description: undefined, ports: [80] });
    expect(r).toEqual({ inputs: { name: "web", replicas: 1, ports: [80] } });
    // Optional properties left out are absent, not present as undefined (toEqual cannot tell).
    expect(Object.keys(r.inputs!).sort()).toEqual(["name", "ports", "replicas"]);
  });

  test("a failure names the property and the rule", () => {
    const r = checkWith(schema, { name: "-web", replicas: 0, region: "EU West" });
    expect(r.inputs).toBeUndefined();
    expect(r.failures).toEqual(expect.arrayContaining([
      { property: "name", reason: expect.stringMatching(/^name: must be 1 to 64 characters/) },
      { property: "replicas", reason: "replicas: must be at least 1" },
      { property: "region", reason: expect.stringMatching(/^region: must be a region key/) },
    ]));
    expect(r.failures).toHaveLength(3);
  });

  test("a missing required property says so", () => {
    expect(checkWith(schema, {}).failures).toEqual([{ property: "name", reason: "name: is required" }]);
  });

  test("nested failures name the path to the element", () => {
    const r = checkWith(schema, { name: "a", ports: [80, 70000] });
    expect(r.failures).toEqual([{ property: "ports[1]", reason: "ports[1]: must be at most 65535" }]);
    const t = checkWith(schema, { name: "a", tags: { env: 5 } });
    expect(t.failures?.[0].property).toBe("tags.env");
    // Pulumi's property path syntax: indexes in brackets, keys that are not identifiers quoted.
    expect(checkWith(schema, { name: "a", tags: { "team name": 5 } }).failures?.[0].property).toBe('tags["team name"]');
  });

  test("unknown properties are refused; __provider is the engine's and is allowed", () => {
    const r = checkWith(schema, { name: "a", colour: "red", __provider: "urn:x" });
    expect(r.failures).toEqual([{ property: "colour", reason: "unknown property 'colour'" }]);
  });

  test("values not known yet are skipped and passed through untouched", () => {
    const r = checkWith<Inputs>(schema, { name: UNKNOWN, region: "af-west-1", tags: { a: UNKNOWN } });
    expect(r.failures).toBeUndefined();
    expect(r.inputs).toEqual({ name: UNKNOWN, region: "af-west-1", replicas: 1, tags: { a: UNKNOWN } });
    // Known values around them are still checked.
    expect(checkWith(schema, { name: UNKNOWN, replicas: 0 }).failures).toEqual([{ property: "replicas", reason: "replicas: must be at least 1" }]);
  });

  test("cross-property rules run once every value they read is known and valid", () => {
    const rules = jest.fn((i: Inputs) => (i.ports && i.ports.length > i.replicas ? [{ property: "ports", reason: "ports: at most one per replica" }] : []));
    expect(checkWith<Inputs>(schema, { name: "a", ports: [1, 2] }, rules).failures).toEqual([{ property: "ports", reason: "ports: at most one per replica" }]);
    expect(rules).toHaveBeenCalledTimes(1);
    // name is not read by the rule: an unknown or invalid name does not stop it.
    expect(checkWith<Inputs>(schema, { name: UNKNOWN, ports: [1, 2] }, rules).failures).toEqual([{ property: "ports", reason: "ports: at most one per replica" }]);
    expect(checkWith<Inputs>(schema, { name: "-bad", ports: [1, 2] }, rules).failures).toHaveLength(2);
    // ports is read: unknown (even one element) or invalid skips the rule.
    expect(checkWith<Inputs>(schema, { name: "a", ports: [1, UNKNOWN] }, rules).failures).toBeUndefined();
    expect(checkWith<Inputs>(schema, { name: "a", ports: [1, 70000] }, rules).failures).toEqual([{ property: "ports[1]", reason: "ports[1]: must be at most 65535" }]);
  });

  test("each rule of a list is skipped on its own", () => {
    const portsRule = (i: Inputs) => (i.ports && i.ports.length > i.replicas ? [{ property: "ports", reason: "ports: at most one per replica" }] : []);
    const nameRule = (i: Inputs) => (i.name === "admin" ? [{ property: "name", reason: "name: is reserved" }] : []);
    const r = checkWith<Inputs>(schema, { name: "admin", ports: UNKNOWN }, [portsRule, nameRule]);
    expect(r.failures).toEqual([{ property: "name", reason: "name: is reserved" }]);
  });

  test("a rule that fails for another reason than a skipped input is not hidden", () => {
    const broken = (i: Inputs) => (i.ports!.length > 1 ? [] : []);
    expect(() => checkWith<Inputs>(schema, { name: "a" }, broken)).toThrow(TypeError);
  });

  test("open enumerations accept values the provider does not know yet", () => {
    expect(checkWith(schema, { name: "a", kind: "GPU" }).inputs).toMatchObject({ kind: "GPU" });
    expect(checkWith(schema, { name: "a", kind: 5 }).failures?.[0].property).toBe("kind");
  });

  test("the real Project schema", () => {
    expect(checkWith(projectInputs, { name: "shop", region: "af-west-1" }).inputs).toEqual({ name: "shop", region: "af-west-1" });
    const r = checkWith(projectInputs, { name: "shop", description: "x".repeat(1025), regoin: "af-west-1" });
    expect(r.failures).toEqual(expect.arrayContaining([
      { property: "description", reason: "description: must be at most 1024 characters" },
      { property: "regoin", reason: "unknown property 'regoin'" },
    ]));
  });
});

describe("diffWith", () => {
  const spec = { update: ["name", "description", "tags"], replace: ["region", "workspaceId"], defaulted: ["region", "workspaceId"] };
  const olds = { name: "a", description: "d", region: "af-west-1", workspaceId: "w1", tags: { x: "1" }, createdAt: "t" };

  test("no change", () => {
    expect(diffWith(olds, { name: "a", description: "d", region: "af-west-1", tags: { x: "1" } }, spec)).toMatchObject({ changes: false, replaces: [] });
  });

  test("an updatable property changes in place", () => {
    expect(diffWith(olds, { name: "b", description: "d", tags: { x: "1" } }, spec)).toMatchObject({ changes: true, replaces: [] });
    expect(diffWith(olds, { name: "a", description: "d", tags: { x: "2" } }, spec)).toMatchObject({ changes: true, replaces: [] });
    // Removing an optional value is a change too.
    expect(diffWith(olds, { name: "a", tags: { x: "1" } }, spec)).toMatchObject({ changes: true, replaces: [] });
  });

  test("a property no route can change replaces", () => {
    expect(diffWith(olds, { name: "a", description: "d", tags: { x: "1" }, region: "eu-central-1" }, spec)).toMatchObject({ changes: true, replaces: ["region"] });
    expect(diffWith(olds, { name: "b", description: "d", tags: { x: "1" }, workspaceId: "w2", region: "us-east-1" }, spec).replaces).toEqual(["region", "workspaceId"]);
  });

  test("a defaulted property left out keeps whatever the platform chose", () => {
    expect(diffWith(olds, { name: "a", description: "d", tags: { x: "1" }, region: undefined }, spec)).toMatchObject({ changes: false, replaces: [] });
    // ...but a property that is not defaulted, left out, is a change.
    expect(diffWith(olds, { name: "a", tags: { x: "1" } }, { update: ["description"] }).changes).toBe(true);
  });

  test("a value not known yet counts as a change, of the property's kind", () => {
    expect(diffWith(olds, { name: UNKNOWN, description: "d", tags: { x: "1" } }, spec)).toMatchObject({ changes: true, replaces: [] });
    expect(diffWith(olds, { name: "a", description: "d", tags: { x: "1" }, region: UNKNOWN }, spec)).toMatchObject({ changes: true, replaces: ["region"] });
    expect(diffWith(olds, { name: "a", description: "d", tags: { x: UNKNOWN } }, spec).changes).toBe(true);
  });

  test("properties outside the spec (outputs) are ignored; deleteBeforeReplace is passed on", () => {
    expect(diffWith(olds, { name: "a", description: "d", tags: { x: "1" }, createdAt: "other" }, spec).changes).toBe(false);
    expect(diffWith(olds, { region: "us-east-1" }, { replace: ["region"], deleteBeforeReplace: true })).toEqual({
      changes: true, replaces: ["region"], deleteBeforeReplace: true, detailedDiff: { region: { kind: "update", replace: true } },
    });
  });

  test("the detail names each changed leaf: list items by index, object fields by name, with add/delete and replace", () => {
    const vars = (mode: string) => [{ key: "A", value: "1" }, { key: "MODE", value: mode }];
    const d = diffWith(
      { envVars: vars("prod"), tags: { x: "1", "a-b": "2" }, region: "eu", port: 80 },
      { envVars: [...vars("dev"), { key: "NEW", value: "n" }], tags: { x: "1", "a-b": "3", y: "9" }, region: "us" },
      { update: ["envVars", "tags", "port"], replace: ["region"] },
    );
    expect(d.detailedDiff).toEqual({
      "envVars[1].value": { kind: "update", replace: false },
      "envVars[2]": { kind: "add", replace: false },
      'tags["a-b"]': { kind: "update", replace: false },
      "tags.y": { kind: "add", replace: false },
      port: { kind: "delete", replace: false },
      region: { kind: "update", replace: true },
    });
    expect(diffWith({ name: "a" }, { name: UNKNOWN }, { update: ["name"] }).detailedDiff).toEqual({ name: { kind: "update", replace: false } });
    expect(diffWith({ name: "a" }, { name: "a" }, { update: ["name"] }).detailedDiff).toEqual({});
  });

  test("detailPaths: every index of the longer list, and nothing past it", () => {
    const out: Record<string, PropertyChange> = {};
    detailPaths("ports", [80], [80, 443, 8080], false, out);
    expect(out).toEqual({ "ports[1]": { kind: "add", replace: false }, "ports[2]": { kind: "add", replace: false } });
    const gone: Record<string, PropertyChange> = {};
    detailPaths("ports", [80, 443], [80], true, gone);
    expect(gone).toEqual({ "ports[1]": { kind: "delete", replace: true } });
    // A list become an object (or a scalar) is one update of the whole property.
    const kind: Record<string, PropertyChange> = {};
    detailPaths("x", [1], { a: 1 }, false, kind);
    detailPaths("y", "a", ["a"], false, kind);
    expect(kind).toEqual({ x: { kind: "update", replace: false }, y: { kind: "update", replace: false } });
  });

  test("detailPaths: null reads as absent, so set from null is an add and set to null a delete", () => {
    const out: Record<string, PropertyChange> = {};
    detailPaths("description", null, "d", false, out);
    detailPaths("tags", { a: "1" }, null, false, out);
    detailPaths("env", [{ v: null }], [{ v: "x" }], true, out);
    expect(out).toEqual({
      description: { kind: "add", replace: false },
      tags: { kind: "delete", replace: false },
      "env[0].v": { kind: "add", replace: true },
    });
  });

  test("null and undefined are the same", () => {
    expect(diffWith({ description: null }, { description: undefined }, { update: ["description"] }).changes).toBe(false);
    expect(diffWith({}, { description: null }, { update: ["description"] }).changes).toBe(false);
  });
});

describe("same", () => {
  test.each([
    [1, 1, true], ["a", "a", true], [null, undefined, true], [undefined, null, true], [null, null, true],
    [0, null, false], ["", undefined, false], [false, undefined, false], [1, "1", false],
    [[1, 2], [1, 2], true], [[1, 2], [2, 1], false], [[1], [1, undefined], false], [[], {}, false],
    [{ a: 1, b: undefined }, { a: 1 }, true], [{ a: 1, b: null }, { a: 1 }, true], [{ a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 2 }] } }, true],
    [{ a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 3 }] } }, false], [{ a: 1 }, { a: 1, b: 2 }, false], [{}, null, false],
    // Lists of different lengths, even when the shorter one is a prefix of the longer.
    [[1, 2], [1], false], [[], [1], false], [[{ a: 1 }], [{ a: 1 }, { a: 1 }], false],
    // A list is never an object with the same indices, nor a string with the same characters.
    [[1], { 0: 1 }, false], [["a"], "a", false], [{ a: [1] }, { a: { 0: 1 } }, false],
    // An object is never a scalar, even an empty one.
    [{}, 5, false], [{}, true, false],
  ])("same(%j, %j) is %s", (a, b, expected) => {
    expect(same(a, b)).toBe(expected);
    expect(same(b, a)).toBe(expected);
  });
});

describe("helpers", () => {
  test("isUnknown looks inside arrays and objects", () => {
    expect(isUnknown(UNKNOWN)).toBe(true);
    expect(isUnknown([1, UNKNOWN])).toBe(true);
    expect(isUnknown({ a: { b: UNKNOWN } })).toBe(true);
    expect(isUnknown({ a: "b" })).toBe(false);
    expect(isUnknown(null)).toBe(false);
  });

  test("isUnknown: one unknown anywhere is enough, and empty containers hold none", () => {
    expect(isUnknown([[1, UNKNOWN]])).toBe(true);
    expect(isUnknown([1, [2, [3, UNKNOWN]]])).toBe(true);
    expect(isUnknown({ a: 1, b: UNKNOWN })).toBe(true);
    expect(isUnknown({ a: [{ b: "x" }, { c: UNKNOWN }] })).toBe(true);
    expect(isUnknown([])).toBe(false);
    expect(isUnknown({})).toBe(false);
    expect(isUnknown([[], {}])).toBe(false);
    expect(isUnknown([1, [2, 3]])).toBe(false);
    expect(isUnknown(`${UNKNOWN}x`)).toBe(false);
    expect(isUnknown(0)).toBe(false);
  });

  test("isImport: no previous state, or only the engine's __provider", () => {
    expect(isImport(undefined)).toBe(true);
    expect(isImport({})).toBe(true);
    expect(isImport({ __provider: "urn:pulumi:s::p::pulumi:providers:cloudplatform::default" })).toBe(true);
    expect(isImport({ __provider: "urn:x", name: "web" })).toBe(false);
    expect(isImport({ name: "web" })).toBe(false);
  });

  test("ResourceInitError: the message is the reason unless reasons are given; it names itself", () => {
    const e = new ResourceInitError("deploy failed", "svc_1", { name: "web" });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("ResourceInitError");
    expect(e.message).toBe("deploy failed");
    expect(e.reasons).toEqual(["deploy failed"]);
    expect(e).toMatchObject({ id: "svc_1", properties: { name: "web" } });
    expect(String(e)).toBe("ResourceInitError: deploy failed");
    const two = new ResourceInitError("not healthy", "svc_2", {}, ["build failed", "health check failed"]);
    expect(two.reasons).toEqual(["build failed", "health check failed"]);
  });

  test("findOrUndefined turns 404 into undefined and nothing else", async () => {
    await expect(findOrUndefined(async () => "x")).resolves.toBe("x");
    await expect(findOrUndefined(async () => { throw notFound(); })).resolves.toBeUndefined();
    const conflict = ApiError.from({ status: 409, body: {}, requestId: "r", method: "GET", path: "/x" });
    await expect(findOrUndefined(async () => { throw conflict; })).rejects.toBeInstanceOf(ConflictError);
  });

  test("deleteIgnoringNotFound treats 404 as done and rethrows the rest", async () => {
    await expect(deleteIgnoringNotFound(async () => { throw notFound(); })).resolves.toBeUndefined();
    await expect(deleteIgnoringNotFound(async () => { throw new Error("boom"); })).rejects.toThrow("boom");
  });

  test("compact drops undefined only", () => {
    expect(compact({ a: undefined, b: null, c: 0, d: "" })).toEqual({ b: null, c: 0, d: "" });
    expect(Object.keys(compact({ a: undefined }))).toEqual([]);
  });
});
