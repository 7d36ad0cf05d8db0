// Every example under examples/ runs as users run it, through the real CLI against the emulator:
// up, an empty preview, destroy, and nothing left on the platform.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, EXAMPLES, expectNoDrift, testStack } from "../support/stack";

jest.setTimeout(600_000);

/** Config and platform set-up an example needs beyond the emulator's address and key. */
const SETUP: Record<string, { config?: Record<string, string>; delegate?: string }> = {
  "mail-domain": { config: { domain: "examples-mail.test", timeout: "60s" }, delegate: "examples-mail.test" },
  "static-site": { config: { domain: "examples-site.test", timeout: "60s" }, delegate: "examples-site.test" },
  "mail-sandbox": { config: { domain: "examples-sandbox.test", timeout: "60s" }, delegate: "examples-sandbox.test" },
  "full-stack": { config: { domain: "examples-full.test", timeout: "60s" }, delegate: "examples-full.test" },
};

// The TypeScript ones: Python and Go examples run through the Automation API (quickstart-languages.test.ts).
const isNodejs = (d: string) => existsSync(join(EXAMPLES, d, "Pulumi.yaml")) && /^runtime:\s*(\n\s+name:\s*)?nodejs\b/m.test(readFileSync(join(EXAMPLES, d, "Pulumi.yaml"), "utf8"));
const examples = readdirSync(EXAMPLES).filter((d) => statSync(join(EXAMPLES, d)).isDirectory() && isNodejs(d)).sort();

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0.05 } });
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.control("POST", "/reset"));

test("the examples are the ones this suite knows how to set up", () => {
  expect(examples.length).toBeGreaterThanOrEqual(3);
  for (const name of Object.keys(SETUP)) expect(examples).toContain(name);
});

test.each(examples)("examples/%s: up, empty preview, destroy, nothing left", async (name) => {
  const setup = SETUP[name] ?? {};
  if (setup.delegate) await emu.control("POST", "/dns/delegations", { domain: setup.delegate });
  const s = await testStack(emu, join(EXAMPLES, name), setup.config ?? {});
  try {
    const up = await s.stack.up();
    expect(changes(up).create).toBeGreaterThan(0);
    expect(Object.keys(changes(up))).toEqual(["create"]);
    await expectNoDrift(s);
    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
