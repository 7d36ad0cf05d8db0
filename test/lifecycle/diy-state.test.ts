// The tests read a stack's outputs and last update from the file backend (scripts/diy-state.ts)
// instead of running `pulumi stack output` and `pulumi stack history` after each operation: what
// they read is what the CLI prints, secrets (top level and nested) included, and what they cannot
// read (here: secrets under another passphrase) is left to the CLI. A stack in a backend of its own
// is disposed of with its folder, and its config file goes too.
import * as pulumi from "@pulumi/pulumi";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DiyState } from "../../scripts/diy-state";
import { openStack, PASSPHRASE, type StackHandle } from "../../scripts/pulumi-env";
import { pulumiCmd } from "../support/stack";

jest.setTimeout(120_000);

let work: string;
let s: StackHandle;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cloudplatform-diy-"));
  s = await openStack({
    programDir: work,
    stackName: "diy",
    config: { greeting: "hi", token: { value: "t0k", secret: true } },
    program: {
      projectName: "diy-state",
      run: async () => ({
        plain: 1,
        list: [1, "a", { b: null }],
        secret: pulumi.secret("s3cr3t"),
        nested: { a: pulumi.secret({ deep: ["x"] }), b: 2 },
        text: pulumi.secret("line\nwith \"quotes\" and ünïcode"),
      }),
    },
  });
});
afterAll(async () => {
  if (s && existsSync(s.backendDir)) await s.dispose();
  rmSync(work, { recursive: true, force: true });
});

async function cli(): Promise<{ outputs: Record<string, { value: unknown; secret: boolean }>; last: any }> {
  const masked = JSON.parse((await pulumiCmd(s, ["stack", "output", "--json"])).stdout);
  const plain = JSON.parse((await pulumiCmd(s, ["stack", "output", "--json", "--show-secrets"])).stdout);
  const outputs = Object.fromEntries(Object.entries(plain).map(([k, value]) => [k, { value, secret: masked[k] === "[secret]" }]));
  const [last] = JSON.parse((await pulumiCmd(s, ["stack", "history", "--json", "--show-secrets", "--page-size", "1", "--page", "1"])).stdout);
  return { outputs, last };
}

/** What the stack's operations answer from: the reader itself, not the CLI it falls back to. */
const files = () => new DiyState(s.backendDir, "diy-state", PASSPHRASE);

test("outputs and the last update read from the backend are what the CLI prints", async () => {
  const up = await s.stack.up();
  const printed = await cli();
  expect(files().outputs("diy")).toEqual(printed.outputs);
  expect(JSON.parse(JSON.stringify(files().lastUpdate("diy")))).toEqual(printed.last);
  expect(up.outputs).toEqual(printed.outputs);
  expect(up.outputs.secret).toEqual({ value: "s3cr3t", secret: true });
  expect(up.outputs.nested).toEqual({ value: { a: { deep: ["x"] }, b: 2 }, secret: false });
  expect(JSON.parse(JSON.stringify(up.summary))).toEqual(printed.last);
  expect(up.summary.resourceChanges).toEqual({ create: 1 });
  // under another passphrase the secrets cannot be read: the CLI is asked instead
  expect(new DiyState(s.backendDir, "diy-state", "not-the-passphrase").outputs("diy")).toBeUndefined();
  expect(new DiyState(s.backendDir, "diy-state", "not-the-passphrase").lastUpdate("diy")).toBeUndefined();

  // the second update is the newest one read
  const again = await s.stack.refresh();
  expect(again.summary.kind).toBe("refresh");
  const afterRefresh = (await cli()).last;
  expect(JSON.parse(JSON.stringify(files().lastUpdate("diy")))).toEqual(afterRefresh);
  expect(JSON.parse(JSON.stringify(again.summary))).toEqual(afterRefresh);

  // destroyed: no outputs, as the CLI says
  const gone = await s.stack.destroy();
  expect(gone.summary).toMatchObject({ kind: "destroy", result: "succeeded", resourceChanges: { delete: 1 } });
  expect(files().outputs("diy")).toEqual((await cli()).outputs);
  expect(await s.stack.outputs()).toEqual({});

  expect(existsSync(join(work, "Pulumi.diy.yaml"))).toBe(true);
  await s.dispose();
  expect(existsSync(join(work, "Pulumi.diy.yaml"))).toBe(false);
  expect(existsSync(s.backendDir)).toBe(false);
});
