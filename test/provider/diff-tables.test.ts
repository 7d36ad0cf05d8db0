// Every input of the resources below, changed alone: it either updates in place or replaces, as its
// documentation says ("Changing it replaces ..."), and no input is left out of the diff. An input
// left unset keeps the platform's choice only where the platform has a default.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Bucket } from "../../provider/resources/bucket";
import { CustomDomain } from "../../provider/resources/customDomain";
import { DnsRecord } from "../../provider/resources/dnsRecord";
import { DnsZone } from "../../provider/resources/dnsZone";
import { Environment } from "../../provider/resources/environment";
import { EnvVar } from "../../provider/resources/envVar";
import { MailDomain } from "../../provider/resources/mailDomain";
import { Project } from "../../provider/resources/project";
import { SecretFile } from "../../provider/resources/secretFile";
import { Service } from "../../provider/resources/service";
import type { ResourceDefinition } from "../../provider/resources/framework";
import { Suppression } from "../../provider/resources/suppression";

type Props = Record<string, unknown>;
const schema = JSON.parse(readFileSync(join(__dirname, "../../schema.json"), "utf8"));
const inputNames = (token: string): string[] => Object.keys(schema.resources[token].inputProperties).sort();
/** The inputs whose documentation says that changing them replaces the resource. */
const documentedReplaces = (token: string): string[] =>
  Object.entries<{ description?: string }>(schema.resources[token].inputProperties)
    .filter(([, p]) => /(Changing it|a change) replaces/.test(p.description ?? ""))
    .map(([k]) => k)
    .sort();

/** Another value of the same kind. */
function changed(v: unknown): unknown {
  if (typeof v === "boolean") return !v;
  if (typeof v === "number") return v + 1;
  if (Array.isArray(v)) return [...v, v[0]];
  return `${v}-2`;
}

async function classify(t: Table, olds: Props, news: Props) {
  const d = await t.def.diff!("id", { ...olds, ...t.state } as any, news as any);
  if (!d.changes) return "none";
  return d.replaces?.length ? `replace ${d.replaces.join(",")}` : "update";
}

interface Table {
  def: ResourceDefinition;
  olds: Props;
  /** Outputs the diff also reads from the old state. */
  state?: Props;
  replace: string[];
  /** Inputs whose absence means "the platform's default": leaving them out is no change. */
  defaulted: string[];
}

const SERVICE_REPLACE = ["environmentId", "type", "region", "tier", "subdomain", "dbName", "dbUser", "dbPassword", "connectionEnvName", "injectConnectionUrl"];
const TABLES: Table[] = [
  {
    def: Project,
    olds: { name: "shop", displayName: "Shop", description: "d", region: "af-west-1", workspaceId: "w1" },
    replace: ["region", "workspaceId"],
    defaulted: ["region", "workspaceId"],
  },
  {
    def: Service,
    olds: {
      environmentId: "e1", name: "web", type: "WEB", region: "af-west-1", tier: "STARTER", subdomain: "shop",
      sourceType: "CONTAINER_IMAGE", image: "nginx:1", imageCommand: "run", repoFullName: "o/r", installationId: "i1", gitUrl: "https://g.test/r.git", branch: "main",
      buildCommand: "b", startCommand: "s", runtimeVersion: "20", rootDir: "app", healthCheckPath: "/h", port: 8080, monorepoStrategy: "ISOLATED",
      staticOutputDir: "dist", staticSpa: false, watchPaths: ["src"],
      envVars: [{ key: "A", value: "1", scope: "ALL", secret: false }], secretFiles: [{ path: "/a", content: "x" }],
      schedule: "0 * * * *", command: "job", suspended: false, cronSuspended: false, previewsEnabled: false, waitForDeploy: true, redeployOnChange: false, timeout: "10m",
      dbName: "app", dbUser: "app", dbPassword: "p".repeat(16), connectionEnvName: "DATABASE_URL", injectConnectionUrl: true,
    },
    // connectionEnvName and injectConnectionUrl are set at create only (no route changes them).
    replace: SERVICE_REPLACE,
    defaulted: [
      "region", "tier", "subdomain", "sourceType", "imageCommand", "installationId", "branch", "buildCommand", "startCommand", "runtimeVersion", "rootDir",
      "healthCheckPath", "port", "monorepoStrategy", "staticOutputDir", "staticSpa", "watchPaths", "command", "suspended", "cronSuspended",
      "previewsEnabled", "waitForDeploy", "redeployOnChange", "timeout", "dbName", "dbUser", "dbPassword", "connectionEnvName", "injectConnectionUrl",
    ],
  },
  {
    def: EnvVar,
    olds: { serviceId: "s1", key: "A", value: "1", scope: "ALL", secret: false },
    replace: ["serviceId", "key"],
    defaulted: [],
  },
  {
    def: DnsRecord,
    olds: { zoneId: "z1", name: "mail", type: "MX", content: "mx.example.net", ttl: 3600, priority: 10 },
    state: { zoneName: "example.com" },
    replace: ["zoneId"],
    defaulted: ["ttl", "priority"],
  },
  {
    def: Environment,
    olds: { projectId: "p1", name: "production" },
    replace: ["name", "projectId"],
    defaulted: [],
  },
  {
    def: DnsZone,
    olds: { name: "example.com", workspaceId: "w1" },
    replace: ["name", "workspaceId"],
    defaulted: ["workspaceId"],
  },
  {
    def: MailDomain,
    olds: { name: "mail.example.com", region: "af-west-1", workspaceId: "w1" },
    replace: ["name", "region", "workspaceId"],
    defaulted: ["region", "workspaceId"],
  },
  {
    def: SecretFile,
    olds: { serviceId: "s1", path: "/etc/app.conf", content: "x" },
    replace: ["path", "serviceId"],
    defaulted: [],
  },
  {
    def: Suppression,
    olds: { address: "a@example.com", workspaceId: "w1" },
    replace: ["address", "workspaceId"],
    defaulted: ["workspaceId"],
  },
  {
    def: CustomDomain,
    olds: { serviceId: "s1", domain: "shop.example.com" },
    replace: ["domain", "serviceId"],
    defaulted: [],
  },
  {
    def: Bucket,
    olds: {
      name: "assets", region: "af-west-1", workspaceId: "w1", visibility: "PRIVATE", forceDestroy: true,
      corsRules: [{ allowedMethods: ["GET"], allowedOrigins: ["*"] }], policy: '{"Statement":[]}',
    },
    replace: ["name", "region", "visibility", "workspaceId"],
    // forceDestroy left out is false: a change from true.
    defaulted: ["region", "workspaceId", "visibility", "corsRules", "policy"],
  },
];

describe.each(TABLES.map((t) => ({ ...t, token: t.def.token })))("$token", (t) => {
  test("the table covers every input", () => {
    expect(Object.keys(t.olds).sort()).toEqual(inputNames(t.token));
  });

  test("the inputs that replace are those whose documentation says so", () => {
    expect([...t.replace].sort()).toEqual(documentedReplaces(t.token));
  });

  test("the same inputs are no change", async () => {
    expect(await classify(t, t.olds, { ...t.olds })).toBe("none");
  });

  test.each(inputNames(t.token))("changing %s alone", async (key) => {
    const news = { ...t.olds, [key]: changed(t.olds[key]) };
    if (t.token.endsWith("DnsRecord") && key === "type") news.type = "TXT";
    expect(await classify(t, t.olds, news)).toBe(t.replace.includes(key) ? `replace ${key}` : "update");
  });

  test.each(inputNames(t.token).filter((k) => !["name", "key", "serviceId", "zoneId", "environmentId", "type", "value", "content"].includes(k)))(
    "leaving %s out",
    async (key) => {
      const { [key]: _dropped, ...news } = t.olds;
      const expected = t.defaulted.includes(key) ? "none" : t.replace.includes(key) ? `replace ${key}` : "update";
      expect(await classify(t, t.olds, news)).toBe(expected);
    },
  );
});

