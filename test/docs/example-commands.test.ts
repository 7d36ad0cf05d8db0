// The commands the examples' READMEs give run as written (`make test-full`): every `sh` block of
// each TypeScript example's README, in order, in one shell from the example's folder, and the
// marked block of docs/state-in-buckets.md. They start their own emulator, use a local backend
// under $HOME (a fresh one here) and end by checking the emulator holds nothing
// (`jq -e '.total == 0'`). Each example's first `up` is followed by
// `preview --refresh --expect-no-changes`: the example's objects read back exactly as declared.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../scripts/pulumi-env";
import { EXAMPLES } from "../support/stack";
import { markedBlock, nodejsExamples, runScript, shBlocks } from "./shell-blocks";

jest.setTimeout(900_000);

test("docs/state-in-buckets.md: a stack with its state in an emulator bucket runs as written", async () => {
  const r = await runScript(markedBlock(readFileSync(join(ROOT, "docs", "state-in-buckets.md"), "utf8"), "example-commands.test.ts"), ROOT);
  expect({ code: r.code, tail: r.code === 0 ? "" : r.out.slice(-4000) }).toEqual({ code: 0, tail: "" });
  expect(r.out).toContain(".pulumi/stacks/quickstart/dev.json");
  expect(r.out.trim().split("\n").pop()).toBe("true");
});

test.each(nodejsExamples)("examples/%s/README.md: its commands run as written and leave nothing", async (name) => {
  const dir = join(EXAMPLES, name);
  const script = shBlocks(readFileSync(join(dir, "README.md"), "utf8")).join("\n");
  const r = await runScript(script, dir);
  expect({ code: r.code, tail: r.code === 0 ? "" : r.out.slice(-4000) }).toEqual({ code: 0, tail: "" });
  expect(r.out.trim().split("\n").pop()).toBe("true"); // the last check: the emulator holds nothing
});
