// Every rule the spec states for the resources' inputs, enforced at check (preview), naming the
// property: one row per rule, with the spec section it comes from. A rule runs as soon as the
// properties it reads are known, so each row is also run with the parent id still unknown.
import { resources } from "../../provider/resources";
import { UNKNOWN } from "../../provider/resources/framework";
import { cronProblem, duration } from "../../provider/resources/rules";
import { parseSchedule } from "../../emulator/models/cron";

interface Row {
  rule: string;
  /** Where the spec states it (infrastructure routes unless said). */
  spec: string;
  kind: string;
  inputs: Record<string, unknown>;
  /** The failing property and words of its message. */
  property: string;
  message: string;
  /** The input that holds the parent's id (left unknown in the second run). */
  parent?: string;
}

const web = { environmentId: "env_1", name: "web", type: "WEB", image: "nginx:1" };
const zone = { zoneId: "zone_1" };

const ROWS: Row[] = [
  // Project (§4.2)
  { rule: "project name is required", spec: "§4.2 POST projects", kind: "Project", inputs: {}, property: "name", message: "is required" },
  { rule: "project name shape", spec: "§4.2", kind: "Project", inputs: { name: "-x" }, property: "name", message: "must be 1 to 64 characters" },
  { rule: "project region is a region key", spec: "§4.2 region (region key)", kind: "Project", inputs: { name: "p", region: "Mars 1" }, property: "region", message: "region key" },
  // Environment (§4.2)
  { rule: "environment name is required", spec: "§4.2 POST environments", kind: "Environment", inputs: { projectId: "p1" }, property: "name", message: "is required", parent: "projectId" },
  // Service (§4.3 create body, §2.3-2.4)
  { rule: "service type is one of the listed values", spec: "§4.3 type", kind: "Service", inputs: { ...web, type: "LAMBDA" }, property: "type", message: "must be one of WEB", parent: "environmentId" },
  { rule: "schedule only on CRON", spec: "§4.3 schedule: CRON only", kind: "Service", inputs: { ...web, schedule: "0 * * * *" }, property: "schedule", message: "CRON services only", parent: "environmentId" },
  { rule: "command only on CRON", spec: "§4.3 command: CRON only", kind: "Service", inputs: { ...web, command: "run" }, property: "command", message: "CRON services only", parent: "environmentId" },
  { rule: "CRON needs a schedule", spec: "§4.3 schedule", kind: "Service", inputs: { ...web, type: "CRON" }, property: "schedule", message: "is required for a CRON service", parent: "environmentId" },
  { rule: "a cron macro is not five fields", spec: "§2.4 five-field cron", kind: "Service", inputs: { ...web, type: "CRON", schedule: "@daily" }, property: "schedule", message: "is a macro", parent: "environmentId" },
  { rule: "cron has five fields", spec: "§2.4 five-field cron", kind: "Service", inputs: { ...web, type: "CRON", schedule: "* * *" }, property: "schedule", message: "must have five fields", parent: "environmentId" },
  { rule: "cron minute 0-59", spec: "§2.4 five-field cron", kind: "Service", inputs: { ...web, type: "CRON", schedule: "60 * * * *" }, property: "schedule", message: "minute field: 60 is outside 0-59", parent: "environmentId" },
  { rule: "cron hour 0-23", spec: "§2.4 five-field cron", kind: "Service", inputs: { ...web, type: "CRON", schedule: "0 24 * * *" }, property: "schedule", message: "hour field: 24 is outside 0-23", parent: "environmentId" },
  { rule: "cron day 1-31", spec: "§2.4 five-field cron", kind: "Service", inputs: { ...web, type: "CRON", schedule: "0 0 0 * *" }, property: "schedule", message: "day of month field: 0 is outside 1-31", parent: "environmentId" },
  { rule: "cron month 1-12 or a name", spec: "§2.4 five-field cron", kind: "Service", inputs: { ...web, type: "CRON", schedule: "0 0 1 FOO *" }, property: "schedule", message: "month field: 'FOO' is not a number", parent: "environmentId" },
  { rule: "cron weekday 0-7", spec: "§2.4 five-field cron", kind: "Service", inputs: { ...web, type: "CRON", schedule: "0 0 * * 8" }, property: "schedule", message: "day of week field: 8 is outside 0-7", parent: "environmentId" },
  { rule: "cron step is positive", spec: "§2.4 five-field cron", kind: "Service", inputs: { ...web, type: "CRON", schedule: "*/0 * * * *" }, property: "schedule", message: "step '0' must be a positive number", parent: "environmentId" },
  { rule: "cron range runs forwards", spec: "§2.4 five-field cron", kind: "Service", inputs: { ...web, type: "CRON", schedule: "0 5-2 * * *" }, property: "schedule", message: "range 5-2 runs backwards", parent: "environmentId" },
  { rule: "dbName only on databases", spec: "§4.3 dbName (databases)", kind: "Service", inputs: { ...web, dbName: "app" }, property: "dbName", message: "database services only", parent: "environmentId" },
  { rule: "dbPassword only on databases", spec: "§4.3 dbPassword (databases)", kind: "Service", inputs: { ...web, dbPassword: "x".repeat(16) }, property: "dbPassword", message: "database services only", parent: "environmentId" },
  { rule: "a database takes no image", spec: "§2.3 databases run the engine image", kind: "Service", inputs: { environmentId: "e", name: "db", type: "POSTGRES", image: "postgres:16" }, property: "image", message: "engine image", parent: "environmentId" },
  { rule: "dbName is an identifier", spec: "§4.3 dbName", kind: "Service", inputs: { environmentId: "e", name: "db", type: "POSTGRES", dbName: "my-db" }, property: "dbName", message: "database identifier", parent: "environmentId" },
  { rule: "dbPassword 12-128 characters", spec: "§4.3 dbPassword", kind: "Service", inputs: { environmentId: "e", name: "db", type: "POSTGRES", dbPassword: "short" }, property: "dbPassword", message: "at least 12 characters", parent: "environmentId" },
  { rule: "a web service needs a source", spec: "§4.3 sourceType inferred from image, gitUrl or repoFullName", kind: "Service", inputs: { environmentId: "e", name: "w", type: "WEB" }, property: "image", message: "needs a source", parent: "environmentId" },
  { rule: "sourceType needs its field", spec: "§4.3 sourceType", kind: "Service", inputs: { ...web, sourceType: "PUBLIC_GIT" }, property: "gitUrl", message: "is required when sourceType is PUBLIC_GIT", parent: "environmentId" },
  { rule: "gitUrl is public HTTPS", spec: "§4.3 gitUrl (public HTTPS git URL)", kind: "Service", inputs: { ...web, image: undefined, gitUrl: "git@github.com:a/b.git" }, property: "gitUrl", message: "public HTTPS git URL", parent: "environmentId" },
  { rule: "repoFullName is owner/name", spec: "§4.3 repoFullName (owner/name)", kind: "Service", inputs: { ...web, image: undefined, repoFullName: "just-a-name" }, property: "repoFullName", message: "owner/name", parent: "environmentId" },
  { rule: "port 1-65535", spec: "§4.3 port", kind: "Service", inputs: { ...web, port: 70000 }, property: "port", message: "must be 1 to 65535", parent: "environmentId" },
  { rule: "tier is one of the listed values", spec: "§4.3 tier", kind: "Service", inputs: { ...web, tier: "HUGE" }, property: "tier", message: "must be one of FREE", parent: "environmentId" },
  { rule: "subdomain is a DNS label", spec: "§4.3 subdomain", kind: "Service", inputs: { ...web, subdomain: "Not_A_Label" }, property: "subdomain", message: "DNS label", parent: "environmentId" },
  { rule: "env var key shape", spec: "§2.3 V1EnvVarInput", kind: "Service", inputs: { ...web, envVars: [{ key: "1BAD", value: "x" }] }, property: "envVars[0].key", message: "must start with a letter", parent: "environmentId" },
  { rule: "env var keys unique", spec: "§4.3 upsert by key", kind: "Service", inputs: { ...web, envVars: [{ key: "A", value: "1" }, { key: "A", value: "2" }] }, property: "envVars", message: "declared twice", parent: "environmentId" },
  { rule: "secret file path has no '..'", spec: "§4.3 secret-files path", kind: "Service", inputs: { ...web, secretFiles: [{ path: "../etc/passwd", content: "x" }] }, property: "secretFiles[0].path", message: "must not contain '..'", parent: "environmentId" },
  { rule: "secret file paths unique", spec: "§4.3 PUT secret-files: one file per path", kind: "Service", inputs: { ...web, secretFiles: [{ path: "/a", content: "1" }, { path: "/a", content: "2" }] }, property: "secretFiles", message: "declared twice", parent: "environmentId" },
  { rule: "healthCheckPath starts with '/'", spec: "§4.3 healthCheckPath", kind: "Service", inputs: { ...web, healthCheckPath: "health" }, property: "healthCheckPath", message: "must start with '/'", parent: "environmentId" },
  // EnvVar, SecretFile (§4.3)
  { rule: "env var scope", spec: "§2.3 V1EnvVarInput scope", kind: "EnvVar", inputs: { serviceId: "s", key: "A", value: "1", scope: "STAGING" }, property: "scope", message: "must be one of ALL", parent: "serviceId" },
  { rule: "env var key shape (EnvVar)", spec: "§2.3 V1EnvVarInput", kind: "EnvVar", inputs: { serviceId: "s", key: "A-B", value: "1" }, property: "key", message: "must start with a letter", parent: "serviceId" },
  { rule: "secret file path shape", spec: "§4.3 secret-files path", kind: "SecretFile", inputs: { serviceId: "s", path: "a b", content: "x" }, property: "path", message: "must be 1 to 255 characters", parent: "serviceId" },
  // DnsZone (§4.1)
  { rule: "zone name is a domain name", spec: "§4.1 POST dns-zones name (a domain name)", kind: "DnsZone", inputs: { name: "localhost" }, property: "name", message: "domain" },
  // DnsRecord (§2.1 V1DnsRecord, §4.1)
  { rule: "record type is one of the listed values", spec: "§2.1 V1DnsRecord type", kind: "DnsRecord", inputs: { ...zone, name: "www", type: "SPF", content: "x" }, property: "type", message: "must be one of A, AAAA", parent: "zoneId" },
  { rule: "A content is an IPv4 address", spec: "§2.1 type A", kind: "DnsRecord", inputs: { ...zone, name: "www", type: "A", content: "example.com" }, property: "content", message: "is not an IPv4 address", parent: "zoneId" },
  { rule: "AAAA content is an IPv6 address", spec: "§2.1 type AAAA", kind: "DnsRecord", inputs: { ...zone, name: "www", type: "AAAA", content: "203.0.113.1" }, property: "content", message: "is not an IPv6 address", parent: "zoneId" },
  { rule: "no CNAME at the zone apex", spec: "§2.6 V1DnsTarget: an apex cannot use a CNAME", kind: "DnsRecord", inputs: { ...zone, name: "@", type: "CNAME", content: "x.example.net" }, property: "name", message: "zone apex", parent: "zoneId" },
  { rule: "priority only on MX and SRV", spec: "§2.1 priority (MX, SRV)", kind: "DnsRecord", inputs: { ...zone, name: "www", type: "A", content: "203.0.113.1", priority: 10 }, property: "priority", message: "only MX and SRV", parent: "zoneId" },
  { rule: "CNAME content is a host name", spec: "§2.1 type CNAME", kind: "DnsRecord", inputs: { ...zone, name: "www", type: "CNAME", content: "not a host" }, property: "content", message: "is not a host name", parent: "zoneId" },
  { rule: "SRV content shape", spec: "§2.1 type SRV", kind: "DnsRecord", inputs: { ...zone, name: "_sip._tcp", type: "SRV", content: "sip.example.com", priority: 10 }, property: "content", message: "'<weight> <port> <target>'", parent: "zoneId" },
  { rule: "TTL range", spec: "§2.1 ttl", kind: "DnsRecord", inputs: { ...zone, name: "www", type: "A", content: "203.0.113.1", ttl: 5 }, property: "ttl", message: "at least 60", parent: "zoneId" },
  { rule: "record name shape", spec: "§4.1 name ('@' or a label)", kind: "DnsRecord", inputs: { ...zone, name: "bad name", type: "A", content: "203.0.113.1" }, property: "name", message: "must be '@'", parent: "zoneId" },
  { rule: "record set: A content is an IPv4 address", spec: "§2.1 type A", kind: "DnsRecordSet", inputs: { ...zone, records: [{ name: "www", type: "A", content: "nope" }] }, property: "records[0].content", message: "IPv4", parent: "zoneId" },
  // Mail (conventions document §4)
  { rule: "mail domain name is a domain name", spec: "conventions §4 POST mail/domains name", kind: "MailDomain", inputs: { name: "nodot" }, property: "name", message: "domain" },
  { rule: "suppression address is an email address", spec: "conventions §2 suppressions", kind: "Suppression", inputs: { address: "not-an-address" }, property: "address", message: "email address" },
];

async function failuresOf(kind: string, inputs: Record<string, unknown>) {
  const def = resources[kind];
  const clean = Object.fromEntries(Object.entries(inputs).filter(([, v]) => v !== undefined));
  return (await def.check!({}, clean)).failures ?? [];
}

describe.each(ROWS)("$kind: $rule ($spec)", (row) => {
  test("fails at check, naming the property", async () => {
    const failures = await failuresOf(row.kind, row.inputs);
    const hit = failures.find((f) => f.property === row.property);
    expect(hit?.reason).toEqual(expect.stringContaining(row.message));
    expect(hit?.reason.startsWith(row.property)).toBe(true);
  });
  if (row.parent) {
    test("fails even while the parent's id is unknown (preview of a new parent)", async () => {
      const failures = await failuresOf(row.kind, { ...row.inputs, [row.parent!]: UNKNOWN });
      expect(failures.find((f) => f.property === row.property)?.reason).toEqual(expect.stringContaining(row.message));
    });
  }
});

test("valid inputs pass, with unknown values anywhere", async () => {
  expect(await failuresOf("Service", { ...web, environmentId: UNKNOWN })).toEqual([]);
  expect(await failuresOf("Service", { ...web, type: "CRON", schedule: "*/5 9-17 * JAN-MAR MON-FRI", command: "run" })).toEqual([]);
  expect(await failuresOf("Service", { ...web, type: UNKNOWN, schedule: "@daily" })).toEqual([
    expect.objectContaining({ property: "schedule", reason: expect.stringContaining("is a macro") }),
  ]);
  expect(await failuresOf("DnsRecord", { ...zone, name: "www", type: "A", content: UNKNOWN, priority: 5 })).toEqual([
    expect.objectContaining({ property: "priority" }),
  ]);
  expect(await failuresOf("DnsRecord", { ...zone, name: "@", type: "ALIAS", content: "x.example.net" })).toEqual([]);
  expect(await failuresOf("DnsRecord", { ...zone, name: "mail", type: "MX", content: "10 mx.example.net" })).toEqual([]);
});

describe("cron: the provider and the emulator agree", () => {
  const EXPRESSIONS = [
    "* * * * *", "0 0 * * *", "*/15 * * * *", "0 9-17 * * MON-FRI", "0 0 1 JAN,JUL *", "5,10,15 * * * 0", "0 0 * * 7",
    "0 0 31 12 *", "1-59/2 * * * *", "? * * * ?", "0 0 * * sun",
    "60 * * * *", "0 24 * * *", "0 0 0 * *", "0 0 32 * *", "0 0 * 13 *", "0 0 * 0 *", "0 0 * * 8", "*/0 * * * *",
    "5-2 * * * *", "a * * * *", "0 0 * FOO *", "1,,2 * * * *", "* * * *", "* * * * * *", "@hourly", "",
    // spacing: surrounding and repeated blanks are fine
    "  0 0 * * *  ", "0  0\t* * *",
    // numbers are whole fields: no letters before or after the digits, in values and steps
    "1a * * * *", "a1 * * * *", "*/1a * * * *", "*/a1 * * * *", "*/1 * * * *",
    // ranges: equal ends run forwards; names mix with numbers (JAN is 1, SUN is 0); two ends only
    "5-5 * * * *", "0 0 1 1-JAN *", "0 0 1 FEB-1 *", "0 0 * * MON-1", "0 0 * * 2-MON", "0 0 * * SUN-0",
    "1-2-3 * * * *", "3-2-1 * * * *",
  ];
  test.each(EXPRESSIONS)("'%s'", (expr) => {
    let emulatorError: string | undefined;
    try {
      parseSchedule(expr);
    } catch (err) {
      emulatorError = (err as Error).message;
    }
    expect(cronProblem(expr) === undefined).toBe(emulatorError === undefined);
  });
});

describe("cron messages name the field and the rule", () => {
  test.each([
    ["a * * * *", "minute field: 'a' is not a number"],
    ["0 0 1 FOO *", "month field: 'FOO' is not a number or a name such as JAN"],
    ["0 0 * * XYZ", "day of week field: 'XYZ' is not a number or a name such as SUN"],
    ["1,,2 * * * *", "minute field: empty list item in '1,,2'"],
    ["0 3-2-1 * * *", "hour field: range 3-2-1 must have two ends, such as 1-5"],
  ])("'%s'", (expr, message) => {
    expect(cronProblem(expr)).toBe(message);
  });
});

describe("a wait limit input", () => {
  const timeout = duration("How long to wait.");
  test("takes the waiter's forms and refuses anything else, saying which forms", () => {
    for (const ok of ["90s", "15m", "1h30m", "500ms", "30"]) expect(timeout.safeParse(ok).success).toBe(true);
    for (const bad of ["soon", "0s", "-5m", ""]) {
      const r = timeout.safeParse(bad);
      expect(r.success).toBe(false);
      expect(r.error?.issues.map((i) => i.message)).toEqual(['must be a duration such as "90s", "15m" or "1h30m"']);
    }
    expect(timeout.safeParse(90).error?.issues.map((i) => i.message)).toEqual(['must be a duration such as "90s" or "15m"']);
  });
});
