// cloudplatform-drift through the real CLI against the emulator, on four stacks of one backend:
// test/programs/drift-app on the dynamic and on the native SDK (TypeScript), and the same stack
// made by Python and by Go through the Automation API. Their programs are never run by the command.
// Right after `up` every stack is clean and the check writes no state; then each gets the same
// out-of-band changes (an env var changed, a secret env var changed, the image changed, a DNS
// record deleted, a bucket's CORS edited, and the project's description, which is under
// ignoreChanges), and every format reports exactly those findings, env vars named by key (the
// plain one with its two values beside the rotated secret) on every SDK, with secrets shown only
// as [secret]. Then --remediate restores the dynamic stack; on the native one --plan lists what `up`
// would do once the program names another zone, --remediate refuses that replacing plan and
// --allow-replace carries it out. Everything is destroyed.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../scripts/pulumi-env";
import type { Report, StackReport } from "../../provider/drift/types";
import { emulator, type TestEmulator } from "../support/emulator";
import { PROGRAMS } from "../support/stack";
import { pathText } from "../../provider/drift/findings";
import { backendState, destroyStack, drift, fleetEnv, makeDrift, otherStack, run, tsStack, type FleetStack } from "./fleet";

jest.setTimeout(1_800_000);

const TOKEN = `tok-${process.pid}-orig-s3cr3t`;
const NEW_TOKEN = `tok-${process.pid}-live-s3cr3t`;

let emu: TestEmulator;
let dir: string;
let fleet: FleetStack[] = [];
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0 } });
  mkdirSync(join(ROOT, ".pulumi-state"), { recursive: true });
  dir = mkdtempSync(join(ROOT, ".pulumi-state", "drift-"));
  // One at a time: the two cores are shared.
  fleet.push(await tsStack(emu, dir, "dyn", "dynamic", TOKEN));
  fleet.push(await tsStack(emu, dir, "nat", "native", TOKEN));
  fleet.push(await otherStack(emu, dir, "python", TOKEN));
  fleet.push(await otherStack(emu, dir, "go", TOKEN));
}, 1_800_000);
afterAll(async () => {
  const left = fleet;
  fleet = [];
  for (const s of left) await destroyStack(emu, dir, s);
  try {
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 900_000);

/** Findings as `<Kind> <name> <type> <path>: <from> -> <to>` lines, sorted. */
function lines(s: StackReport): string[] {
  return s.findings.flatMap((f) => {
    const res = `${f.resourceType.split(":").pop()} ${f.urn.split("::").pop()}`;
    if (f.type !== "changed") return [`${res} ${f.type}`];
    return (f.changelog ?? []).map((c) => `${res} ${c.type} ${pathText(c.path, f.resourceType)}: ${JSON.stringify(c.from)} -> ${JSON.stringify(c.to)}`);
  }).sort();
}

test("right after up: every stack is clean, and the check writes no state", async () => {
  const before = backendState(dir);
  const r = await drift(["--all", "--format", "json"], fleetEnv(emu, dir));
  expect(r.stderr).toBe("");
  const report = JSON.parse(r.stdout) as Report;
  expect(report.stacks.map((s) => [s.name, s.status, s.findings])).toEqual(fleet.map((s) => [s.name, "clean", []]).sort());
  expect(report.summary).toMatchObject({ stacksChecked: 4, stacksDrifted: 0, stacksFailed: 0, resourcesDrifted: 0 });
  expect(report.summary.resourcesChecked).toBe(4 * 6);
  expect(r.code).toBe(0);
  expect(backendState(dir)).toBe(before);
});

test("--unmanaged: a record added by hand to a managed zone and a project nobody declared, the coverage, and cloudplatform-adopt takes the list", async () => {
  const api = emu.client();
  const { zoneId } = fleet.find((s) => s.name.endsWith("/dyn"))!.outputs;
  const record = await api.create<{ id: string }>(`/v1/dns-zones/${zoneId}/records`, { name: "hand", type: "TXT", content: "added by hand" });
  const project = await api.create<{ id: string }>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: `undeclared-${process.pid}` });
  try {
    const out = join(dir, "unmanaged.json");
    const r = await drift(["--all", "--unmanaged", "--format", "json", "--out", out], fleetEnv(emu, dir));
    const report = JSON.parse(readFileSync(out, "utf8")) as Report;
    expect([r.code, report.summary.stacksDrifted, report.summary.objectsUnmanaged]).toEqual([7, 0, 2]);
    expect(report.unmanaged!.objects.map((o) => [o.kind, o.importId]).sort()).toEqual([["DnsRecord", `${zoneId}/${record.id}`], ["Project", project.id]]);
    // Each stack's project, environment, service, zone, record and bucket: 24 of 26.
    expect(report.unmanaged!.coverage).toEqual({ managed: 24, total: 26, percent: 92.3 });
    await run(process.execPath, [join(ROOT, "dist", "provider", "adopt", "cli.js"), "--from-drift", out, "--out", join(dir, "adopt.json")], { env: fleetEnv(emu, dir) });
    const file = JSON.parse(readFileSync(join(dir, "adopt.json"), "utf8")) as { resources: { type: string; id: string }[] };
    expect(file.resources.map((x) => [x.type, x.id])).toEqual([["cloudplatform:index:Project", project.id], ["cloudplatform:index:DnsRecord", `${zoneId}/${record.id}`]]);
  } finally {
    await api.delete(`/v1/dns-records/${record.id}`);
    await api.delete(`/v1/projects/${project.id}`);
  }
});

describe("after changes made outside Pulumi", () => {
  let out: Record<string, string>;
  let code: number;
  let report: Report;
  beforeAll(async () => {
    const api = emu.client();
    for (const s of fleet) await makeDrift(emu, api, s.outputs, NEW_TOKEN);
    const files = join(dir, "reports");
    mkdirSync(files, { recursive: true });
    const before = backendState(dir);
    const r = await drift(["--all", "--parallel", "2", "--json", join(files, "r.json"), "--markdown", join(files, "r.md"), "--junit", join(files, "r.xml")], fleetEnv(emu, dir));
    expect(backendState(dir)).toBe(before);
    code = r.code;
    out = { console: r.stdout, stderr: r.stderr, json: readFileSync(join(files, "r.json"), "utf8"), markdown: readFileSync(join(files, "r.md"), "utf8"), junit: readFileSync(join(files, "r.xml"), "utf8") };
    report = JSON.parse(out.json);
  }, 900_000);

  test("exit code 7, and the JSON report holds exactly the changes made, on every SDK", () => {
    expect(code).toBe(7);
    expect(report).toMatchObject({ schemaVersion: 1, tool: "cloudplatform-drift" });
    expect(report.summary).toEqual({ stacksChecked: 4, stacksDrifted: 4, stacksFailed: 0, resourcesChecked: 24, resourcesDrifted: 12, resourcesUnreadable: 0 });
    for (const s of report.stacks) {
      expect([s.name, lines(s)]).toEqual([s.name, EXPECTED]);
      expect(s.status).toBe("drifted");
    }
  });

  test("console, Markdown and JUnit name the same findings", () => {
    for (const s of report.stacks) {
      const stack = s.name;
      const section = (text: string, start: string) => text.slice(text.indexOf(start), text.indexOf("\n\n", text.indexOf(start) + start.length + 2) >>> 0);
      const con = section(out.console, `${stack}  DRIFTED`);
      const md = section(out.markdown, `### ${stack}`);
      const junit = out.junit.slice(out.junit.indexOf(`name="${stack}"`), out.junit.indexOf("</testcase>", out.junit.indexOf(`name="${stack}"`)));
      for (const [needle, n] of ROWS) {
        expect([stack, "console", needle, con.split("\n").filter((l) => l.includes(needle)).length]).toEqual([stack, "console", needle, n]);
        expect([stack, "markdown", needle, md.split("\n").filter((l) => l.includes(needle)).length]).toEqual([stack, "markdown", needle, n]);
        expect([stack, "junit", needle, junit.split("\n").filter((l) => l.includes(needle)).length]).toEqual([stack, "junit", needle, n]);
      }
      expect(con.split("\n").length - 2).toBe(EXPECTED.length);
    }
    expect(out.junit).toMatch(/<testsuites name="cloudplatform-drift" tests="4" failures="4" errors="0"/);
    expect(out.markdown).toMatch(/\*\*4\*\* stacks checked: \*\*4\*\* drifted, \*\*0\*\* failed\. \*\*12\*\* of 24 resources drifted/);
  });

  test("no format holds a secret: the changed token shows as [secret] -> [secret]", () => {
    for (const [format, text] of Object.entries(out)) {
      expect([format, text.includes(TOKEN), text.includes(NEW_TOKEN), text.includes(emu.apiKey)]).toEqual([format, false, false, false]);
    }
    for (const format of ["console", "json", "markdown", "junit"]) expect([format, out[format].includes("[secret]")]).toEqual([format, true]);
  });

  test("--remediate restores a drifted stack from its program, and it is clean after", async () => {
    const dyn = fleet.find((s) => s.name.endsWith("/dyn"))!;
    const env = fleetEnv(emu, dir);
    const r = await drift(["--dir", join(PROGRAMS, "drift-app"), "--stack", "dyn", "--remediate", "--format", "json"], env);
    const s = (JSON.parse(r.stdout) as Report).stacks[0];
    expect(s.remediation?.status).toBe("restored");
    expect(s.remediation?.resources.map((x) => `${x.op} ${x.urn.split("::").pop()}`).sort()).toEqual(["create www", "update assets", "update web"]);
    expect(r.code).toBe(7);
    const again = await drift(["--stack", dyn.name, "--format", "json"], env);
    expect([again.code, (JSON.parse(again.stdout) as Report).stacks[0].findings]).toEqual([0, []]);
  });

  test("a secret env var rotated alone is drift, never clean: exit 7, the service named", async () => {
    const dyn = fleet.find((s) => s.name.endsWith("/dyn"))!;
    await emu.client().patch(`/v1/services/${dyn.outputs.serviceId}/env-vars`, { envVars: [{ key: "TOKEN", value: `${NEW_TOKEN}-again`, secret: true }] });
    const r = await drift(["--stack", dyn.name, "--format", "json"], fleetEnv(emu, dir));
    const s = (JSON.parse(r.stdout) as Report).stacks[0];
    expect([r.code, s.status, s.findings.map((f) => [f.type, f.urn.split("::").pop()])]).toEqual([7, "drifted", [["changed", "web"]]]);
    expect(r.stdout).not.toContain(NEW_TOKEN);
  });

  test("--plan shows what up would do; --remediate refuses a plan that replaces, and --allow-replace lets it", async () => {
    const nat = fleet.find((s) => s.name.endsWith("/nat"))!;
    const env = fleetEnv(emu, dir);
    // The program now names another zone: besides restoring the drift, `up` would replace the zone.
    await nat.handle!.stack.setConfig("zone", { value: `drift-nat${process.pid}-moved.test` });
    const args = ["--dir", join(PROGRAMS, "drift-app"), "--stack", "nat", "--remediate", "--format", "json"];
    const steps = (list: { urn: string; op: string }[] = []) => list.map((x) => `${x.op} ${x.urn.split("::").pop()}`).sort();
    const before = backendState(dir);
    const refused = await drift([...args, "--plan"], env);
    const r1 = (JSON.parse(refused.stdout) as Report).stacks[0];
    expect([r1.status, r1.plan?.error, steps(r1.plan?.steps)]).toEqual(["drifted", undefined, ["create www", "replace zone", "update assets", "update web"]]);
    expect(r1.remediation).toMatchObject({ status: "refused", message: expect.stringMatching(/replace 1 resource.*--allow-replace/) });
    expect(steps(r1.remediation?.resources)).toEqual(["replace zone"]);
    expect(backendState(dir)).toBe(before);
    expect(refused.code).toBe(7);

    const allowed = await drift([...args, "--allow-replace"], env);
    const r2 = (JSON.parse(allowed.stdout) as Report).stacks[0];
    expect([r2.remediation?.status, r2.remediation?.message]).toEqual(["restored", undefined]);
    expect(steps(r2.remediation?.resources)).toEqual(["create www", "replace zone", "update assets", "update web"]);
    const zones = await emu.client().list<{ name: string }>(`/v1/workspaces/${emu.workspaceId}/dns-zones`);
    expect(zones.map((z) => z.name)).toContain(`drift-nat${process.pid}-moved.test`);
  });
});

/**
 * What every stack reports, on every SDK: the service's env vars by key (the plain one with its
 * two values beside the rotated secret), its image, the record deleted, the CORS rule; not the
 * ignored description.
 */
const EXPECTED = [
  'Bucket assets update corsRules[0].allowedOrigins[0]: "https://shop.example.com" -> "https://evil.example.com"',
  "DnsRecord www deleted",
  'Service web update envVars[MODE].value: "production" -> "debug"',
  'Service web update envVars[TOKEN].value: "[secret]" -> "[secret]"',
  'Service web update image: "nginx:1.27" -> "nginx:1.28"',
];
/** The console, Markdown and JUnit lines of each resource. */
const ROWS: [string, number][] = [["Bucket assets", 1], ["DnsRecord www", 1], ["Service web", 3]];
