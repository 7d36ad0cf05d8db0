// Without timings from an earlier run (a clean clone, CI), jest runs the biggest files first: the
// slow tier's CLI, Postgres and toolchain tests, short files that run for minutes, would come
// last and leave one worker idle through the tail. They go first; with timings, jest's own order
// (failed, then longest first) stands.
const Sequencer = require("@jest/test-sequencer").default;
const { testPathIgnorePatterns } = require("./jest.unit.config.js");

const slowTier = testPathIgnorePatterns.filter((p) => p !== "/node_modules/");
const inSlowTier = (path) => slowTier.some((p) => path.includes(p));
/** The longest of them, longest first (a clean clone's run of the whole suite), short as their files
 * are: the fast tier at three dates, every example's README, the drift harness's 16 rounds, the
 * packed package's installs, the registries, drift in four languages, killed ups, the plugin's
 * download, the newest CLI, adoption, Go builds, mypy and go vet; in `make test`, the Go
 * quickstart's build and the fleet's drift. */
const LONGEST = [
  "/test/dates.test.ts", "/test/docs/example-commands.test.ts", "/test/drift/harness.test.ts", "/test/packaging/packaging.test.ts",
  "/test/packaging/registries.test.ts", "/test/drift/lifecycle.test.ts", "/test/lifecycle/random-kill.test.ts",
  "/test/packaging/plugin-download.test.ts", "/test/compat/newest.test.ts", "/test/lifecycle/adopt.test.ts", "/test/lifecycle/go.test.ts",
  "/test/docs/examples.test.ts", "/test/lifecycle/quickstart-languages.test.ts", "/test/drift/workflow.test.ts",
];
const rank = (path) => { const i = LONGEST.findIndex((p) => path.endsWith(p)); return i < 0 ? LONGEST.length : i; };

class SlowTierFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((t) => t.duration != null)) return sorted;
    const slow = sorted.filter((t) => inSlowTier(t.path)).sort((a, b) => rank(a.path) - rank(b.path));
    return [...slow, ...sorted.filter((t) => !inSlowTier(t.path))];
  }
}

module.exports = SlowTierFirst;
