// `make demo` builds only what the demo uses: no SDK generator, and an official `pulumi` of a tested
// version on PATH is used as it is instead of building one. scripts/demo-tools.sh runs here in a
// copy of the layout it expects, with stand-in CLIs, so the checkout's own .tools is never touched.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../../scripts/pulumi-env";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cloudplatform-demo-tools-"));
  mkdirSync(join(dir, "scripts"));
  copyFileSync(join(ROOT, "scripts", "demo-tools.sh"), join(dir, "scripts", "demo-tools.sh"));
  // The fallback: records that it ran instead of building.
  script(join(dir, "scripts", "build-pulumi.sh"), `echo built > "${dir}/built"`);
  mkdirSync(join(dir, "node_modules", "@pulumi", "pulumi", "vendor"), { recursive: true });
  script(join(dir, "node_modules", "@pulumi", "pulumi", "vendor", "pulumi-resource-pulumi-nodejs"), "exit 0");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function script(path: string, body: string): void {
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(path, 0o755);
}

/** A folder with an official-looking CLI of `version` and its Node.js language host. */
function officialCli(version: string): string {
  const bin = join(dir, `pulumi-${version}`);
  mkdirSync(bin);
  script(join(bin, "pulumi"), `echo ${version}`);
  script(join(bin, "pulumi-language-nodejs"), "exit 0");
  return bin;
}

const demoTools = (path: string) =>
  spawnSync("bash", [join(dir, "scripts", "demo-tools.sh")], { env: { ...process.env, PATH: `${path}:/usr/bin:/bin` }, encoding: "utf8" });

test.each(["v3.248.0", "v3.274.1"])("a tested pulumi on PATH (%s) is linked into .tools/bin, nothing is built", (version) => {
  const bin = officialCli(version);
  const r = demoTools(bin);
  expect(r.status).toBe(0);
  expect(readlinkSync(join(dir, ".tools", "bin", "pulumi"))).toBe(join(bin, "pulumi"));
  expect(readlinkSync(join(dir, ".tools", "bin", "pulumi-language-nodejs"))).toBe(join(bin, "pulumi-language-nodejs"));
  expect(existsSync(join(dir, ".tools", "bin", "pulumi-resource-pulumi-nodejs"))).toBe(true);
  expect(existsSync(join(dir, "built"))).toBe(false);
  // run again: what is in .tools/bin is reused
  expect(demoTools("/nonexistent").status).toBe(0);
  expect(existsSync(join(dir, "built"))).toBe(false);
});

test("an untested pulumi on PATH is not used: the pinned release is built", () => {
  const r = demoTools(officialCli("v3.100.0"));
  expect(r.status).toBe(0);
  expect(r.stdout).toContain("no tested pulumi");
  expect(existsSync(join(dir, "built"))).toBe(true);
  expect(existsSync(join(dir, ".tools", "bin", "pulumi"))).toBe(false);
});

test("make demo runs demo-tools.sh and never builds sdkgen", () => {
  const plan = execFileSync("make", ["-n", "-W", "package.json", "demo"], { cwd: ROOT, encoding: "utf8" });
  expect(plan).toContain("scripts/demo-tools.sh");
  expect(plan).not.toMatch(/sdkgen|build-pulumi\.sh/);
});
