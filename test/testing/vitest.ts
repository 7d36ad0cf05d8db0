// Running Vitest (installed by `make vitest` in .tools/vitest) from a test, and where a program that
// uses the kit installed from its tarball can live (`make compat` installs it in .tools/compat).
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/pulumi-env";

export const VITEST = join(ROOT, ".tools", "vitest", "node_modules", ".bin", "vitest");

/** Vitest's JSON report has Jest's shape. */
export interface VitestReport { numPassedTests: number; numFailedTests: number; testResults: { message: string }[] }

/** `vitest run` in `cwd` with its config there; resolves with the JSON report and what it wrote to stderr. */
export async function runVitest(cwd: string, args: string[]): Promise<{ report: VitestReport; stderr: string }> {
  if (!existsSync(VITEST)) throw new Error(`${VITEST} is missing: run make vitest`);
  const out = join(mkdtempSync(join(tmpdir(), "cloudplatform-vitest-")), "report.json");
  try {
    // This Jest worker's JEST_WORKER_ID goes along: the kit must pick Vitest's pool id over it.
    const env = { ...process.env, CI: "true", NO_COLOR: "1" };
    const stderr = await promisify(execFile)(VITEST, ["run", "--reporter=json", `--outputFile=${out}`, ...args], { cwd, env, timeout: 600_000 })
      .then((r) => r.stderr, (err: { stderr?: string }) => err.stderr ?? String(err));
    if (!existsSync(out)) throw new Error(`vitest wrote no report: ${stderr}`);
    return { report: JSON.parse(readFileSync(out, "utf8")) as VitestReport, stderr };
  } finally {
    rmSync(join(out, ".."), { recursive: true, force: true });
  }
}

/** A fresh folder under .tools/compat, where `@pulumi-cloudplatform/emulator` resolves to the package installed from its tarball. */
export function vitestProbeDir(): string {
  const compat = join(ROOT, ".tools", "compat");
  if (!existsSync(join(compat, "node_modules", "@pulumi-cloudplatform", "emulator", "package.json"))) throw new Error(`${compat} has no installed emulator package: run make compat`);
  mkdirSync(join(compat, "programs"), { recursive: true });
  return mkdtempSync(join(compat, "programs", "vitest-"));
}
