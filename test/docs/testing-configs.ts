// docs/testing.md's runner configs, taken as written (the fenced block after the marker naming the
// test that runs it), and the test file both runners run with them: TypeScript with type
// annotations, which a runner without a TypeScript transform cannot parse, using the kit.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../scripts/pulumi-env";

/** The fenced block right after `<!-- test/docs/<testFile> runs this block as written -->` in docs/testing.md. */
export function configBlock(testFile: string): string {
  const markdown = readFileSync(join(ROOT, "docs", "testing.md"), "utf8");
  const at = markdown.indexOf(`<!-- test/docs/${testFile} runs this block as written -->`);
  if (at < 0) throw new Error(`docs/testing.md marks no block for test/docs/${testFile}`);
  const block = /^```\w+\n([\s\S]*?)^```$/m.exec(markdown.slice(at));
  if (!block) throw new Error(`docs/testing.md has no fenced block after the marker for test/docs/${testFile}`);
  return block[1];
}

/** A test as an app writes one: typed, with the runner's globals, against the worker's emulator. */
export const KIT_TEST = `import { api, createBucket, ENV, reset, type Bucket } from "@pulumi-cloudplatform/emulator/testing";

beforeEach(() => reset());

test("a bucket made in a test is in the worker's own workspace", async () => {
  const made: Bucket = await createBucket("docs-config");
  const page = await api<{ data: Bucket[] }>("GET", \`/v1/workspaces/\${process.env[ENV.workspaceId]}/buckets\`);
  expect(page.data.map((b: Bucket) => b.name)).toEqual([made.name]);
});
`;
