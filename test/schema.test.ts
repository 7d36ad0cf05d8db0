// schema.json is generated from the provider's zod definitions; a stale copy fails here.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderSchema } from "../scripts/gen-schema";
import { renderSdkTypes } from "../scripts/gen-sdk-types";
import { renderDocs } from "../scripts/gen-docs";
import { ROOT, TOOLS_BIN } from "../scripts/pulumi-env";
import { components } from "../provider/components";
import { componentTokens } from "../provider/plugin/construct";
import { resources } from "../provider/resources";
import * as sdk from "../sdk";

const committed = () => readFileSync(join(ROOT, "schema.json"), "utf8");

test("schema.json matches the definitions (run `make schema` after changing a resource)", () => {
  expect(committed() === renderSchema()).toBe(true);
});

test("sdk/types.ts matches the definitions (run `make schema` after changing a resource)", () => {
  expect(readFileSync(join(ROOT, "sdk", "types.ts"), "utf8") === renderSdkTypes()).toBe(true);
});

test.each([["nodejs", "native"], ["python", "python"], ["go", "go"]])("the %s SDK (sdk/%s) is what Pulumi's codegen makes of schema.json (run `make schema`)", (language, folder) => {
  const out = mkdtempSync(join(tmpdir(), `${folder}-sdk-`));
  try {
    execFileSync(join(TOOLS_BIN, "sdkgen"), [language, join(ROOT, "schema.json"), out], { stdio: "pipe" });
    const files = (dir: string) => (readdirSync(dir, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
      .filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
      // What building the wheel leaves beside the sources is not part of the SDK; the Go module's
      // go.mod and go.sum are `go mod tidy`'s (its module line is checked below).
      .filter((f) => !/^(build\/|[^/]+\.egg-info\/)|__pycache__|^go\.(mod|sum)$/.test(f)).sort();
    const committedDir = join(ROOT, "sdk", folder);
    expect(files(committedDir)).toEqual(files(out));
    const stale = files(out).filter((f) => readFileSync(join(out, f), "utf8") !== readFileSync(join(committedDir, f), "utf8"));
    expect(stale).toEqual([]);
    if (language === "go") {
      const moduleLine = (dir: string) => readFileSync(join(dir, "go.mod"), "utf8").split("\n")[0];
      expect(moduleLine(committedDir)).toBe(moduleLine(out));
      expect(readFileSync(join(committedDir, "go.mod"), "utf8")).toContain("github.com/pulumi/pulumi/sdk/v3 v3.248.0");
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test("docs/reference matches schema.json: one page per resource and function (run `make schema`)", () => {
  const dir = join(ROOT, "docs", "reference");
  const pages = renderDocs(ROOT);
  expect(readdirSync(dir).filter((f) => f.endsWith(".md")).sort()).toEqual(pages.map((p) => p.file).sort());
  for (const page of pages) expect(`${page.file}: ${readFileSync(join(dir, page.file), "utf8") === page.text ? "current" : "stale"}`).toBe(`${page.file}: current`);
  const schema = JSON.parse(committed());
  expect(pages.length).toBe(Object.keys(schema.resources).length + Object.keys(schema.functions).length + 2);
});

test("the replace flags of schema.json (and the reference docs) are what each resource's diff replaces on", () => {
  const inputs = JSON.parse(committed()).resources as Record<string, { inputProperties: Record<string, { replaceOnChanges?: boolean }> }>;
  const flagged = (token: string) => Object.entries(inputs[token].inputProperties).filter(([, p]) => p.replaceOnChanges).map(([k]) => k).sort();
  expect(flagged("cloudplatform:index:Project")).toEqual(["region", "workspaceId"]);
  expect(flagged("cloudplatform:index:Environment")).toEqual(["name", "projectId"]);
  expect(flagged("cloudplatform:index:DnsRecordSet")).toEqual(["zoneId"]);
  expect(flagged("cloudplatform:index:Bucket")).toEqual(["name", "region", "visibility", "workspaceId"]);
  expect(flagged("cloudplatform:index:Service")).toEqual(
    ["connectionEnvName", "dbName", "dbPassword", "dbUser", "environmentId", "injectConnectionUrl", "region", "subdomain", "tier", "type"],
  );
});

test("schema.json carries the package's version, which the plugin reports", () => {
  expect(JSON.parse(committed()).version).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
});

test("schema.json passes the Pulumi CLI's schema check", () => {
  expect(() => execFileSync(join(TOOLS_BIN, "pulumi"), ["schema", "check", join(ROOT, "schema.json")], { stdio: "pipe" })).not.toThrow();
});

test("every resource has an SDK class and a complete schema entry", () => {
  const schema = JSON.parse(committed());
  for (const [kind, def] of Object.entries(resources)) {
    expect(typeof (sdk as Record<string, unknown>)[kind]).toBe("function");
    const entry = schema.resources[def.token];
    expect(entry).toBeDefined();
    expect(Object.keys(entry.inputProperties).sort()).toEqual(Object.keys(def.inputs.shape).sort());
    for (const key of def.secretOutputs ?? []) expect(entry.properties[key].secret).toBe(true);
    for (const [name, prop] of Object.entries<any>(entry.inputProperties)) {
      expect(`${kind}.${name}: ${prop.description ? "described" : "no description"}`).toBe(`${kind}.${name}: described`);
    }
  }
  expect(schema.config.variables.apiKey.secret).toBe(true);
});

test("the components are in schema.json as components, with their children as resource outputs, and the plugin constructs each", () => {
  const schema = JSON.parse(committed());
  const listed = Object.entries<any>(schema.resources).filter(([, r]) => r.isComponent).map(([token]) => token).sort();
  expect(listed).toEqual(["cloudplatform:index:VerifiedCustomDomain", "cloudplatform:index:VerifiedMailDomain"]);
  expect([...componentTokens].sort()).toEqual(listed);
  for (const c of Object.values(components)) {
    const entry = schema.resources[c.token];
    expect(Object.keys(entry.inputProperties).sort()).toEqual(Object.keys(c.inputs.shape).sort());
    for (const [key, child] of Object.entries(c.children)) expect(entry.properties[key].$ref).toBe(`#/resources/${resources[child.kind].token}`);
  }
  expect(schema.resources["cloudplatform:index:VerifiedMailDomain"].requiredInputs).toEqual(["name", "zoneId"]);
});

test("schema.json names where the plugin is downloaded from, and the Go SDK's import path", () => {
  const schema = JSON.parse(committed());
  expect(schema.pluginDownloadURL).toBe("github://api.github.com/pulumi-cloudplatform/pulumi-cloudplatform");
  expect(schema.language.go.importBasePath).toBe("github.com/pulumi-cloudplatform/pulumi-cloudplatform/sdk/go/cloudplatform");
  // each generated SDK asks the engine for the plugin at that address
  expect(readFileSync(join(ROOT, "sdk", "native", "utilities.ts"), "utf8")).toContain(schema.pluginDownloadURL);
  expect(readFileSync(join(ROOT, "sdk", "python", "pulumi_cloudplatform", "_utilities.py"), "utf8")).toContain(schema.pluginDownloadURL);
  expect(readFileSync(join(ROOT, "sdk", "go", "cloudplatform", "internal", "pulumiUtilities.go"), "utf8")).toContain(schema.pluginDownloadURL);
});

test("schema.json gives the fields' units and limits from the zod rules, and the Registry's long descriptions", () => {
  const schema = JSON.parse(committed());
  const input = (kind: string, key: string): string => schema.resources[`cloudplatform:index:${kind}`].inputProperties[key].description;
  expect(input("DnsRecord", "ttl")).toMatch(/in seconds.*Limits: 60 to 86400\./);
  expect(input("Service", "envVars")).toContain("Limits: at most 500 entries.");
  expect(input("Service", "port")).toContain("Limits: 1 to 65535.");
  expect(input("Service", "timeout")).toContain('Format: numbers with the units ms, s, m or h');
  expect(input("Project", "name")).toContain("1 to 64 characters");
  expect(schema.types["cloudplatform:index:CorsRule"].properties.maxAgeSeconds.description).toContain("Limits: at least 0.");
  for (const entry of [...Object.values<any>(schema.resources), ...Object.values<any>(schema.functions)]) {
    expect(entry.description).toMatch(/^[^{]+\n\n\{\{% examples %\}\}\n## Example Usage\n/);
  }
});
