#!/usr/bin/env bash
# The CPU time of each test file run alone: user + sys of Jest and of every process under it (the
# CLI, providers, programs, emulators), which wall time on a shared machine does not show.
#   scripts/cpu-census.sh [-j N] [test files...]   (default: every test file, one at a time)
# Prints a TSV line per file (CPU seconds, wall seconds, exit status, file), then the total.
# The census process adopts the file's orphans (PR_SET_CHILD_SUBREAPER): a plugin the CLI leaves
# behind still counts, and one still running 30 s after Jest ended is named, then stopped.
# Each run pays Jest's own start (about 1.5 s of CPU) once, which a whole-suite run pays per worker.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=1
if [ "${1:-}" = "-j" ]; then jobs="$2"; shift 2; fi
files=("$@")
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(find test -name '*.test.ts' | sort)
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
export CENSUS_LOGS="$out"
one() {
  python3 - "$1" <<'PY'
import ctypes, os, resource, signal, subprocess, sys, time
file = sys.argv[1]
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
log = open(os.path.join(os.environ["CENSUS_LOGS"], file.replace("/", "_") + ".log"), "w")
start = time.time()
rc = subprocess.call(["scripts/jest", "--ci", "-c", "jest.full.config.js", file], stdout=log, stderr=log, env={**os.environ, "CI": "true"})
wall = time.time() - start
deadline = time.time() + 30
left = []
while True:
    try:
        pid, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    if pid == 0 and time.time() > deadline:
        left = [p for p in os.listdir("/proc") if p.isdigit() and open(f"/proc/{p}/stat").read().split(") ")[1].split()[1] == str(os.getpid())]
        for p in left:
            print(f"{file}: still running after Jest: {open(f'/proc/{p}/cmdline').read().replace(chr(0), ' ')[:200]}", file=sys.stderr)
            os.kill(int(p), signal.SIGKILL)
        deadline = float("inf")
    elif pid == 0:
        time.sleep(0.1)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{ru.ru_utime + ru.ru_stime:.1f}\t{wall:.0f}\t{rc}{'+left' if left else ''}\t{file}", flush=True)
PY
}
export -f one
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} bash -c 'one "$@"' _ {} | tee "$out/all.tsv"
awk -F'\t' '{ cpu += $1; if ($3 != "0") failed++ } END { printf "total\t%.0f s of CPU (%.1f min) in %d files, %d failed or left processes\n", cpu, cpu / 60, NR, failed }' "$out/all.tsv"
