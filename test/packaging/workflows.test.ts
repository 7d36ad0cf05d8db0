// The project's own GitHub Actions workflows (.github/workflows): actionlint (built from the Go
// module proxy by `make tools`, scripts/build-actionlint.sh) finds nothing in them, and they do what
// CONTRIBUTING says: pull requests run `make test`; nightly, by hand and for a tag `make test-full`;
// a tag runs the release after it, publishing with the repository's secrets and attaching the
// plugin's archives and checksums to a GitHub release.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, TOOLS_BIN } from "../../scripts/pulumi-env";

// js-yaml (a devDependency), to read the workflows as GitHub does.
const { load } = require("js-yaml") as { load(text: string): unknown };

const run = promisify(execFile);
const ACTIONLINT = join(TOOLS_BIN, "actionlint");
const WORKFLOWS = join(ROOT, ".github", "workflows");

interface Step { name?: string; run?: string; uses?: string; env?: Record<string, string>; with?: Record<string, unknown> }
interface Job { uses?: string; needs?: string | string[]; steps?: Step[]; permissions?: Record<string, string> }
interface Workflow { on: Record<string, unknown>; jobs: Record<string, Job> }

const workflow = (name: string) => load(readFileSync(join(WORKFLOWS, name), "utf8")) as Workflow;
const runs = (job: Job) => (job.steps ?? []).map((s) => s.run ?? "").join("\n");

test("actionlint passes on every workflow", async () => {
  expect(`${ACTIONLINT}: ${existsSync(ACTIONLINT) ? "present" : "missing; run make tools"}`).toBe(`${ACTIONLINT}: present`);
  const { stdout } = await run(ACTIONLINT, ["-color=false", "-version"]);
  expect(stdout.split("\n")[0]).toBe("v1.7.12");
  const linted = await run(ACTIONLINT, ["-color=false"], { cwd: ROOT }).then(() => "", (err: { stdout?: string }) => err.stdout ?? String(err));
  expect(linted).toBe("");
});

test("pull requests run make test", () => {
  const ci = workflow("ci.yml");
  expect(Object.keys(ci.on)).toContain("pull_request");
  expect(runs(ci.jobs.test)).toMatch(/^make -j4 test$/m);
});

test("nightly, by hand and as a called workflow, make test-full runs", () => {
  const full = workflow("test-full.yml");
  expect(Object.keys(full.on).sort()).toEqual(["schedule", "workflow_call", "workflow_dispatch"]);
  expect(runs(full.jobs["test-full"])).toMatch(/^make -j4 test-full$/m);
});

test("a tag runs make test-full, then the release: artifacts, publishing with the secrets' tokens, the plugin's archives and checksums on a GitHub release", () => {
  const release = workflow("release.yml");
  expect(release.on).toEqual({ push: { tags: ["v*.*.*"] } });
  expect(release.jobs["test-full"].uses).toBe("./.github/workflows/test-full.yml");
  const job = release.jobs.release;
  expect(job.needs).toBe("test-full");
  expect(job.permissions).toEqual({ contents: "write" });
  const script = runs(job);
  expect(script).toContain('make -j4 release VERSION="${TAG#v}"');
  expect(script).toContain("sha256sum --check SHA256SUMS");
  for (const pkg of ["pulumi-cloudplatform", "pulumi-cloudplatform-emulator"]) expect(script).toContain(`npm publish --access public "dist-release/npm/${pkg}-\${TAG#v}.tgz"`);
  expect(script).toContain("twine upload --non-interactive dist-release/python/*");
  expect(script).toContain('git push origin "sdk/go/$TAG"');
  expect(script).toMatch(/gh release create "\$TAG" [^\n]*\\\n\s+dist-release\/plugin\/\*\.tar\.gz dist-release\/plugin\/SHA256SUMS dist-release\/plugin\/schema\.json/);
  const envs = (job.steps ?? []).map((s) => s.env ?? {});
  expect(envs).toEqual(expect.arrayContaining([{ NODE_AUTH_TOKEN: "${{ secrets.NPM_TOKEN }}" }, { TWINE_USERNAME: "__token__", TWINE_PASSWORD: "${{ secrets.PYPI_TOKEN }}" }]));
  // The GitHub release comes before the packages that ask for the plugin it holds.
  const order = (job.steps ?? []).map((s) => s.name ?? "");
  expect(order.indexOf("The GitHub release, with the plugin's archives")).toBeLessThan(order.indexOf("Publish the npm packages"));
  // What the release publishes is what `make release` builds (scripts/release.sh writes dist-release/).
  expect(readFileSync(join(ROOT, "scripts", "release.sh"), "utf8")).toContain('OUT="${RELEASE_OUT:-$ROOT/dist-release}"');
});
