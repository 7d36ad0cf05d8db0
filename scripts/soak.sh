#!/usr/bin/env bash
# Runs the whole suite N times on a clean clone of the current commit, as CI runs it (.ci/run:
# CI=true, make -j4 test-full), and prints each run's time and every failing test with how many
# runs it failed in. A test that fails in some runs only is a flaky test: a bug to fix at its cause.
#   scripts/soak.sh N     (uncommitted changes are not in the clone)
# The first run makes the prerequisites too (npm ci, the builds, the venv, the newest pair, Vitest):
# its time is a clean clone's .ci/run. SOAK_KEEP=1 keeps the clone and the runs' results;
# SOAK_TARGET (default test-full) and SOAK_JEST_ARGS (e.g. test files) narrow it, to try the script.
set -uo pipefail
runs="${1:?usage: scripts/soak.sh N}"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "N must be a positive number, not $runs" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
commit="$(git -C "$root" rev-parse HEAD)"
work="$(mktemp -d "${TMPDIR:-/tmp}/cloudplatform-soak-XXXXXX")"
[ "${SOAK_KEEP:-}" = 1 ] || trap 'rm -rf "$work"' EXIT
git clone --quiet --no-local "$root" "$work/clone"
git -C "$work/clone" checkout --quiet --detach "$commit"
target="${SOAK_TARGET:-test-full}"
echo "soak: $runs runs of make $target on a clean clone of ${commit:0:12} in $work/clone"

for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  ( cd "$work/clone" && CI=true /usr/bin/time -f '%U %S' -o "$work/cpu-$i" \
      make -j4 "$target" JEST_FLAGS="--json --outputFile=$work/run-$i.json ${SOAK_JEST_ARGS:-}" ) > "$work/run-$i.log" 2>&1
  status=$?
  took=$(( $(date +%s) - start ))
  cpu=$(awk '/^[0-9.]+ [0-9.]+$/ { printf "%.1f", ($1 + $2) / 60 }' "$work/cpu-$i" 2>/dev/null)
  summary=$( [ -s "$work/run-$i.json" ] && node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numTotalTestSuites} files`);
  ' "$work/run-$i.json" || echo "no results: see $work/run-$i.log")
  printf 'run %d: %dm%02ds (user + sys %s min), exit %d: %s\n' "$i" $((took / 60)) $((took % 60)) "${cpu:-?}" "$status" "$summary"
  [ "$status" -eq 0 ] || [ -s "$work/run-$i.json" ] || tail -20 "$work/run-$i.log"
done

# Every failing test over all runs, with its count; a file that failed outside its tests counts as one.
node -e '
  const fs = require("fs");
  const [dir, n, root] = process.argv.slice(1);
  const count = new Map();
  for (let i = 1; i <= Number(n); i++) {
    const file = `${dir}/run-${i}.json`;
    if (!fs.existsSync(file)) { count.set(`(run ${i} wrote no results)`, 1); continue; }
    for (const f of JSON.parse(fs.readFileSync(file, "utf8")).testResults) {
      const name = f.name.slice(f.name.indexOf("/test/") + 1);
      const failed = f.assertionResults.filter((t) => t.status === "failed").map((t) => `${name}: ${t.fullName}`);
      if (!failed.length && f.status === "failed") failed.push(`${name}: ${(f.message.split("\n").find((l) => l.trim()) ?? "failed").trim()}`);
      for (const t of failed) count.set(t, (count.get(t) ?? 0) + 1);
    }
  }
  if (!count.size) console.log(`failures: none in ${n} runs`);
  else {
    console.log(`failures over ${n} runs:`);
    for (const [t, c] of [...count].sort((a, b) => b[1] - a[1])) console.log(`  ${c}x ${t}`);
  }
  process.exitCode = count.size ? 1 : 0;
' "$work" "$runs" "$root"
