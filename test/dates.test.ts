// The fast tier (jest.unit.config.js) again, at dates chosen to break calendar code: each run's
// processes believe it is that date (libfaketime, Debian's `faketime`, which `make system-deps`
// installs), starting two minutes before a boundary the run then crosses. No test may depend on the
// date, the time of day or the time zone (CONTRIBUTING.md "Dates").
//
// libfaketime moves the clock processes read (Date, timers' wall time), not the kernel's file times,
// and an external binary that waits for an absolute time on the faked clock can hang: dig does
// (test/emulator/dns-server.test.ts runs it on the real clock, test/support/helpers.ts realClockEnv);
// a lock's age is read against the file system's clock (helpers.ts fileClockNow). Monotonic clocks
// stay real (FAKETIME_DONT_FAKE_MONOTONIC), so timeouts and intervals keep their lengths.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(__dirname, "..");

/** Each date, the zone the run's processes are in, and what it is chosen to break. */
const DATES: [string, string, string][] = [
  ["2039-12-31T23:58:00Z", "UTC", "a Saturday; the last day of a year, crossed at midnight UTC; past 2038's 32-bit seconds"],
  ["2028-02-29T23:58:00Z", "Pacific/Kiritimati", "a leap day, crossed into March; a zone at UTC+14, where the local date is a day ahead"],
  ["2038-03-14T06:58:00Z", "America/New_York", "the day daylight saving time starts there (02:00 local, 07:00 UTC, crossed); after 2038-01-19"],
];

/** libfaketime's multi-threaded variant (Node has threads), where Debian puts it. */
const LIBFAKETIME = (() => {
  for (const dir of ["/usr/lib", ...readdirSync("/usr/lib").map((d) => join("/usr/lib", d))]) {
    const lib = join(dir, "faketime", "libfaketimeMT.so.1");
    if (existsSync(lib)) return lib;
  }
  return undefined;
})();

// Without libfaketime these skip, except under CI, where every test must run: there they fail.
const underCi = !!process.env.CI && process.env.CI !== "false";

interface JestResults {
  numTotalTests: number;
  startTime: number;
  testResults: { name: string; message: string; assertionResults: { fullName: string; status: string }[] }[];
}

/** The fast tier's test files, as jest.unit.config.js selects them. */
const fastTierFiles = (() => {
  let files: string[] | undefined;
  return () => (files ??= execFileSync(join(ROOT, "scripts", "jest"), ["-c", "jest.unit.config.js", "--listTests"], { cwd: ROOT, encoding: "utf8", env: { ...process.env, JEST_WORKER_ID: "" } })
    .split("\n").filter((l) => l.endsWith(".test.ts")).sort());
})();

/** The fast tier with the process clock at `at` in zone `tz`: its failing tests, by file. */
async function fastTierAt(at: string, tz: string): Promise<{ total: number; files: number; startedAt: number; failing: string[] }> {
  const out = mkdtempSync(join(tmpdir(), "cloudplatform-dates-"));
  const results = join(out, "results.json");
  try {
    const offset = Math.round((Date.parse(at) - Date.now()) / 1000);
    // The fast tier's files under jest.full.config.js, the config the suite's own run has: Jest keys
    // its transform cache by the config, so these runs reuse what that run compiled.
    await new Promise<void>((done) => execFile(join(ROOT, "scripts", "jest"), ["--ci", "-c", "jest.full.config.js", "--maxWorkers=2", "--json", `--outputFile=${results}`, "--runTestsByPath", ...fastTierFiles()], {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
      env: {
        ...process.env,
        LD_PRELOAD: LIBFAKETIME,
        FAKETIME: `${offset >= 0 ? "+" : ""}${offset}`,
        FAKETIME_DONT_FAKE_MONOTONIC: "1",
        TZ: tz,
        // The property runs of check-vs-api are about inputs, not dates: fewer of them here.
        CHECK_VS_API_RUNS: "100",
        // Nor are the gate's spellings: the suite runs its 10,000 cases once, on the real clock.
        GATE_FUZZ_RUNS: "300",
        JEST_WORKER_ID: "",
      },
    }, () => done()));
    if (!existsSync(results)) throw new Error(`the fast tier at ${at} (${tz}) wrote no results`);
    const r = JSON.parse(readFileSync(results, "utf8")) as JestResults;
    const failing = r.testResults.flatMap((f) => {
      const file = relative(ROOT, f.name);
      const tests = f.assertionResults.filter((t) => t.status === "failed").map((t) => `${file}: ${t.fullName}`);
      // A file that failed outside its tests (a hook, a compile error) names its message.
      return tests.length || !f.message ? tests : [`${file}: ${f.message.split("\n").find((l) => l.trim()) ?? "failed"}`];
    });
    return { total: r.numTotalTests, files: r.testResults.length, startedAt: r.startTime, failing };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

(LIBFAKETIME || underCi ? describe : describe.skip)("the fast tier at another date", () => {
  beforeAll(() => {
    if (!LIBFAKETIME) throw new Error("libfaketime is not installed (CI=true runs every test): `make system-deps` installs it (faketime)");
  });

  test.each(DATES)("%s in %s: %s", async (at, tz) => {
    const { total, files, startedAt, failing } = await fastTierAt(at, tz);
    expect(failing).toEqual([]);
    expect(files).toBe(fastTierFiles().length);
    expect(total).toBeGreaterThan(1000);
    // The run believed it was that date (Jest stamps its start with the clock it was given).
    expect(Math.abs(startedAt - Date.parse(at))).toBeLessThan(5 * 60_000);
  }, 1_800_000);
});
