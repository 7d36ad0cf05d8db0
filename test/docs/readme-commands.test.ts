// The README's five-minute try runs as written (the block after its marker) from the checkout, as
// a terminal runs what is pasted into it: it starts its own emulator and a throwaway local backend.
// It must stop at the first command that fails, by itself: with `pulumi up` made to fail, nothing
// after it runs and the emulator stops. Every example's README is held to the same in
// test/docs/example-commands.test.ts (`make test-full`); that each has commands is checked here.
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, TOOLS_BIN } from "../../scripts/pulumi-env";
import { waitFor } from "../support/helpers";
import { EXAMPLES } from "../support/stack";
import { markedBlock, nodejsExamples, runScript, shBlocks } from "./shell-blocks";

const block = () => markedBlock(readFileSync(join(ROOT, "README.md"), "utf8"), "readme-commands.test.ts");

jest.setTimeout(900_000);

test("every TypeScript example has a README with commands", () => {
  const all = readdirSync(EXAMPLES).filter((d) => existsSync(join(EXAMPLES, d, "Pulumi.yaml")));
  for (const d of all) expect(`${d}: ${existsSync(join(EXAMPLES, d, "README.md")) ? "README" : "no README"}`).toBe(`${d}: README`);
  expect(nodejsExamples).toEqual(expect.arrayContaining(["quickstart", "web-app", "mail-domain", "mail-sandbox", "static-site", "full-stack"]));
  for (const d of nodejsExamples) {
    const script = shBlocks(readFileSync(join(EXAMPLES, d, "README.md"), "utf8")).join("\n");
    expect([d, /^pulumi up --yes.*\npulumi preview --refresh --expect-no-changes\b/m.test(script)]).toEqual([d, true]);
  }
});

test("README.md: the five-minute try runs as written", async () => {
  const r = await runScript(block(), ROOT, { errexit: false });
  expect({ code: r.code, tail: r.code === 0 ? "" : r.out.slice(-4000) }).toEqual({ code: 0, tail: "" });
  expect(r.out).toMatch(/Resources:\s+\+ 4 created/); // the stack, the project and its two environments
  expect(r.out).toContain("Stack 'dev' has been removed!");
});

test("README.md: the five-minute try stops at the first command that fails, and stops its emulator", async () => {
  // A `pulumi` whose `up` fails (after noting the emulator's address); every other command is the real one.
  const shim = mkdtempSync(join(tmpdir(), "cloudplatform-failing-up-"));
  const quickstartStack = join(EXAMPLES, "quickstart", "Pulumi.dev.yaml");
  const hadStack = existsSync(quickstartStack);
  try {
    writeFileSync(join(shim, "pulumi"), [
      "#!/usr/bin/env bash",
      `if [ "$1" = up ]; then echo "$CLOUDPLATFORM_BASE_URL" > ${JSON.stringify(join(shim, "base-url"))}; echo "error: up failed on purpose" >&2; exit 1; fi`,
      `exec ${JSON.stringify(join(TOOLS_BIN, "pulumi"))} "$@"`,
    ].join("\n"));
    chmodSync(join(shim, "pulumi"), 0o755);
    const r = await runScript(`export PATH=${JSON.stringify(shim)}:$PATH\n${block()}`, ROOT, { errexit: false });
    expect(r.code).not.toBe(0);
    expect(r.out.trimEnd()).toMatch(/error: up failed on purpose$/); // its error is the last thing printed
    expect(r.out).not.toMatch(/Destroying|has been removed/);
    const baseUrl = readFileSync(join(shim, "base-url"), "utf8").trim();
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The emulator was stopped with the shell: its port closes once it has shut down.
    await waitFor(() => fetch(`${baseUrl}/_emulator/health`).then(() => false, () => true), { timeoutMs: 30_000, what: "the emulator to stop" });
  } finally {
    rmSync(shim, { recursive: true, force: true });
    if (!hadStack) rmSync(quickstartStack, { force: true });
  }
});
