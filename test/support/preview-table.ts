// What preview shows is what up does (test/lifecycle/preview-table*.test.ts): one stack per SDK
// (test/programs/preview-table) holds a row for every resource with in-place updates and every
// output users wire into another resource. Round 2 changes every row in place, round 3 replaces a
// bucket; each round's preview must plan exactly the table's step for each resource, and `up` must
// then take that step. On the native SDK each `up` runs the plan its preview saved (`--save-plan`,
// `--plan`), creates, updates, replacement and drift repair alike. No refresh finds a change, not
// even a resource's inputs rewritten: `preview --refresh` after the creates, `refresh
// --preview-only` and `refresh --yes` after the in-place round, the replacement's own `preview
// --refresh` and `up --refresh`, and `preview --refresh` after it. Destroy leaves nothing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emulator, type TestEmulator } from "./emulator";
import { expectNoDrift, refreshRecorder, type Steps, stepRecorder, testStack } from "./stack";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import type { StackHandle } from "../../scripts/pulumi-env";

/**
 * The table: for each resource (`<Kind>::<name>`), its step in round 2, with the wiring that
 * makes it. A row the table does not name stays the same.
 */
const ROUND_2: Steps = {
  "Project::project": "update", // description; Environment::env wired by id, Service::web by a declared region
  "Project::bare": "update", // description; Bucket::by-workspace wired by its undeclared workspaceId and region
  "Service::web": "update", // new image, redeployed; EnvVar::web-url wired by url, EnvVar::web-region by region
  "Service::api": "update", // renamed: a WEB service's URL names it, so...
  "EnvVar::api-url": "update", // ...this one, wired by that url, really changes
  "EnvVar::mode": "update", // new value; SecretFile::file wired by its serviceId
  "SecretFile::file": "update", // new content; EnvVar::after-file wired by its serviceId
  "StaticSite::site": "update", // renamed, new content; CustomDomain::docs wired by serviceId, EnvVar::site-url by url
  "DnsRecord::txt": "update", // new content; DnsRecordSet::set wired by its zoneId
  "DnsRecordSet::set": "update", // new records; DnsRecord::after-set wired by its zoneId
  "Bucket::assets": "update", // new CORS rules; EnvVar::assets wired by endpoint and publicBaseUrl
  // DnsZoneVerification::zone, CustomDomainVerification::docs, MailDomainVerification::mail: a new
  // timeout alone changes nothing; DnsRecord::txt and the record sets are wired by zoneId.
};
/** Round 3: a new visibility replaces the bucket; the env var wired by its endpoint follows. */
const ROUND_3: Steps = { "Bucket::assets": "replace", "EnvVar::assets": "update" };

const RESOURCES = [
  "Project::project", "Project::bare", "Environment::env", "Bucket::by-workspace", "Service::web", "Service::api",
  "EnvVar::web-url", "EnvVar::web-region", "EnvVar::api-url", "EnvVar::mode", "SecretFile::file", "EnvVar::after-file",
  "StaticSite::site", "EnvVar::site-url", "DnsZone::zone", "DnsZoneVerification::zone", "DnsRecord::txt", "DnsRecordSet::set",
  "DnsRecord::after-set", "CustomDomain::docs", "DnsRecordSet::docs-records", "CustomDomainVerification::docs", "MailDomain::mail",
  "DnsRecordSet::mail-records", "MailDomainVerification::mail", "Bucket::assets", "EnvVar::assets",
];
const table = (changed: Steps, rest: Steps[keyof Steps] = "same"): Steps =>
  Object.fromEntries(RESOURCES.map((r) => [r, changed[r] ?? rest])) as Steps;

let emu: TestEmulator;
let plans: string;

/**
 * Previews, checks the planned step of every resource against `want`, runs `up` (natively, with
 * the plan the preview saved) and checks that it took the same steps.
 */
async function round(s: StackHandle, sdk: string, name: string, want: Steps, opts: { refresh?: string[]; noDrift?: boolean } = {}): Promise<void> {
  const plan = sdk === "native" ? join(plans, `${s.stack.name}-${name}.json`) : undefined;
  const planned = stepRecorder();
  const refreshed = refreshRecorder();
  const both = (...fns: ((e: EngineEvent) => void)[]) => (e: EngineEvent) => fns.forEach((f) => f(e));
  await s.stack.preview({ onEvent: both(planned.onEvent, refreshed.onEvent), plan, refresh: !!opts.refresh });
  expect({ round: name, steps: planned.steps }).toEqual({ round: name, steps: want });
  const done = stepRecorder();
  await s.stack.up({ onEvent: both(done.onEvent, refreshed.onEvent), plan, refresh: !!opts.refresh });
  expect({ round: name, steps: done.steps }).toEqual({ round: name, steps: planned.steps });
  // With --refresh, preview and up each report exactly the refresh changes expected.
  expect({ round: name, refresh: refreshed.changes.sort() }).toEqual({ round: name, refresh: [...(opts.refresh ?? []), ...(opts.refresh ?? [])].sort() });
  if (opts.noDrift) await expectNoDrift(s);
}

/** A refresh that writes nothing, then one that does: after in-place updates, neither finds a change. */
async function expectQuietRefresh(s: StackHandle): Promise<void> {
  for (const write of [false, true]) {
    const quiet = refreshRecorder({ standalone: true });
    await (write ? s.stack.refresh({ onEvent: quiet.onEvent }) : s.stack.previewRefresh({ onEvent: quiet.onEvent }));
    expect({ refresh: write ? "--yes" : "--preview-only", changes: quiet.changes }).toEqual({ refresh: write ? "--yes" : "--preview-only", changes: [] });
  }
}

/** The table's test for one SDK, with its emulator. */
export function previewTable(sdk: "dynamic" | "native"): void {
  jest.setTimeout(600_000);
  beforeAll(async () => {
    emu = await emulator({ settings: { speed: 0.05 } });
    emu.emu.settings.dnsPropagationMs = 100;
    emu.emu.settings.delegations = [];
    plans = mkdtempSync(join(tmpdir(), "preview-plans-"));
  });
  afterAll(async () => {
    rmSync(plans, { recursive: true, force: true });
    await emu?.close();
  });

  test(`${sdk} SDK: each resource's planned step is the table's, and up takes it`, async () => {
    const zone = `${sdk}-table.test`;
    await emu.control("POST", "/dns/delegations", { domain: zone });
    const s = await testStack(emu, "preview-table", { sdk, zone, workspaceId: emu.workspaceId, round: "1" });
    try {
      await round(s, sdk, "1", table({}, "create"), { noDrift: true });
      await s.stack.setConfig("round", { value: "2" });
      await round(s, sdk, "2", table(ROUND_2));
      // Nothing changed since: refresh --preview-only and refresh --yes find nothing, and a
      // replacement then previewed and made with --refresh refreshes every resource quietly.
      await expectQuietRefresh(s);
      await s.stack.setConfig("round", { value: "3" });
      await round(s, sdk, "3", table(ROUND_3), { refresh: [], noDrift: true });
      if (sdk === "native") {
        // Drift repair under a plan: a change by hand, found by the preview's refresh and put back.
        const txt = (await s.stack.exportStack()).deployment.resources.find((r: any) => r.urn.endsWith("DnsRecord::txt"));
        await emu.client().patch(`/v1/dns-records/${txt.id}`, { name: "info", type: "TXT", content: "by hand" });
        await round(s, sdk, "drift", table({ "DnsRecord::txt": "update" }), { refresh: ["DnsRecord::txt diff content", "DnsRecord::txt inputs content"], noDrift: true });
      }
      await s.stack.destroy();
      expect(await emu.leftovers()).toEqual({});
    } finally {
      await s.dispose();
    }
  });
}
