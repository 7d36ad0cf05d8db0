// What one harness stack declares: every value the program sets, in one JSON document the
// TypeScript program (test/programs/drift-harness) and the Python one (test/python/drift_harness.py)
// both read from the stack's config, so the harness knows each declared value without asking the
// provider. Secret values travel as secret config beside it.

export interface EnvVarSpec {
  key: string;
  value: string;
  scope: "ALL" | "PROD" | "UAT" | "DEV";
  secret: boolean;
}
export interface RecordSpec {
  name: string;
  type: string;
  content: string;
  ttl: number;
  priority?: number;
}
export interface CorsRuleSpec {
  allowedMethods: string[];
  allowedOrigins: string[];
  allowedHeaders: string[] | null;
  exposeHeaders: string[] | null;
  maxAgeSeconds: number | null;
}

export interface FleetSpec {
  zone: string;
  project: { name: string; displayName: string; description: string };
  spare: { name: string };
  env: { name: string };
  spareEnv: { name: string };
  web: {
    name: string; image: string; imageCommand: string; startCommand: string; buildCommand: string; healthCheckPath: string; port: number;
    /** The plain env vars; the secret one is `token` (key TOKEN). */
    envVars: EnvVarSpec[];
    filePath: string;
  };
  job: { name: string; image: string; schedule: string; command: string };
  region: { key: string; value: string; scope: EnvVarSpec["scope"] };
  apiKeyVar: { key: string };
  certPath: string;
  records: { www: RecordSpec; txt: RecordSpec; mx: RecordSpec };
  set: RecordSpec[];
  mail: string;
  docs: string;
  suppression: string;
  bucket: { name: string; corsRules: CorsRuleSpec[]; policy: Record<string, unknown> };
  site: { name: string };
}

/** The secret values, set as secret config: `token`, `fileContent`, `apiKey`, `cert`. */
export interface FleetSecrets {
  token: string;
  fileContent: string;
  apiKey: string;
  cert: string;
}

/** The ignoreChanges each program declares, by resource name (the harness's edits under them must not be reported). */
export const IGNORED: Record<string, string[]> = {
  app: ["description"],
  job: ["command"],
  txt: ["ttl"],
  assets: ["corsRules[1].maxAgeSeconds"],
};

/** A stack's spec: names unique to the stack and this process, so stacks share one workspace. */
export function fleetSpec(stack: string, tag: string): { spec: FleetSpec; secrets: FleetSecrets } {
  const zone = `h-${stack}-${tag}.test`;
  const spec: FleetSpec = {
    zone,
    project: { name: `harness-${stack}-${tag}`, displayName: `Harness ${stack}`, description: "managed by the harness" },
    spare: { name: `spare-${stack}-${tag}` },
    env: { name: "production" },
    spareEnv: { name: "staging" },
    web: {
      name: "web", image: "nginx:1.27", imageCommand: "nginx -g daemon-off", startCommand: "serve", buildCommand: "make", healthCheckPath: "/healthz", port: 8080,
      envVars: [
        { key: "MODE", value: "production", scope: "ALL", secret: false },
        { key: "LEVEL", value: "info", scope: "PROD", secret: false },
      ],
      filePath: "/etc/app.json",
    },
    job: { name: "job", image: "busybox:1.36", schedule: "0 3 * * *", command: "echo nightly" },
    region: { key: "REGION", value: "eu", scope: "ALL" },
    apiKeyVar: { key: "API_KEY" },
    certPath: "/etc/cert.pem",
    records: {
      www: { name: "www", type: "CNAME", content: "app.example.com", ttl: 300 },
      txt: { name: "info", type: "TXT", content: "v=harness1", ttl: 600 },
      mx: { name: "@", type: "MX", content: "mx.example.com", ttl: 3600, priority: 10 },
    },
    set: [
      { name: "a", type: "A", content: "192.0.2.1", ttl: 300 },
      { name: "b", type: "TXT", content: "hello", ttl: 300 },
      { name: "c", type: "AAAA", content: "2001:db8::1", ttl: 300 },
    ],
    mail: `news.${zone}`,
    docs: `docs.${zone}`,
    suppression: `bounced-${stack}-${tag}@example.com`,
    bucket: {
      name: `h-${stack}-${tag}-assets`,
      corsRules: [
        { allowedMethods: ["GET", "HEAD"], allowedOrigins: ["https://shop.example.com"], allowedHeaders: null, exposeHeaders: null, maxAgeSeconds: 600 },
        { allowedMethods: ["PUT"], allowedOrigins: ["https://admin.example.com"], allowedHeaders: ["x-upload"], exposeHeaders: null, maxAgeSeconds: 60 },
      ],
      policy: { Version: "2012-10-17", Statement: [{ Effect: "Allow", Principal: "*", Action: "s3:GetObject", Resource: `h-${stack}-${tag}-assets/public/*` }] },
    },
    site: { name: "docs" },
  };
  const secrets: FleetSecrets = {
    token: `tok-${stack}-${tag}-s3cr3t`,
    fileContent: `{"key":"file-${stack}-${tag}-s3cr3t"}`,
    apiKey: `api-${stack}-${tag}-s3cr3t`,
    cert: `-----cert ${stack}-${tag}-s3cr3t-----`,
  };
  return { spec, secrets };
}
