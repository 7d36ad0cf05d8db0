// A secret echoed in an API error never reaches the engine's output: through the real CLI, the API
// answers the EnvVar's and the SecretFile's writes with a 400 whose message holds the random
// secret value each sent (as sent, and JSON-escaped); the failed `up`, its output and the state
// hold neither. The property-based side (many random values, every form) is in
// test/provider/redact.test.ts.
import fc from "fast-check";
import { emulator, type TestEmulator } from "../support/emulator";
import { testStack } from "../support/stack";

jest.setTimeout(300_000);

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0.05 } });
});
afterAll(async () => emu?.close());

/** Two lines of printable text with quotes and backslashes: JSON escapes them, and lines are masked one by one. */
const secretText = fc.tuple(
  fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789\"\\'<&%/ +="), minLength: 12, maxLength: 24 }),
  fc.string({ unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789{}:,\"\\"), minLength: 12, maxLength: 24 }),
).map(([a, b]) => `S1-${a}-x\nS2-${b}-y`);

const pieces = (s: string) => [s, ...s.split("\n"), JSON.stringify(s).slice(1, -1)];

test("random secrets echoed back in API errors are in no output of a failed up", async () => {
  const [envValue, standaloneFile] = fc.sample(secretText, { numRuns: 2, seed: 20261128 });
  const config = Object.fromEntries(Object.entries({
    token: "tok-echo-7c1e9a5d3b", dbPassword: "pw-echo-0d93c7a4e2", fileContent: "{\"k\":\"pk-echo-e84b2a17c6\"}", envValue, standaloneFile,
  }).map(([k, value]) => [k, { value, secret: true }]));
  const s = await testStack(emu, "secrets", config, { keyVia: "config" });
  const leaked = (text: string) => [envValue, standaloneFile, emu.apiKey].flatMap(pieces).filter((p) => text.includes(p));
  try {
    const echo = (v: string) => `value '${v}' was refused; as JSON: ${JSON.stringify({ value: v })}`;
    await emu.control("POST", "/faults", { kind: "status", status: 400, method: "PATCH", pathRegex: "^/v1/services/[^/]+/env-vars$", message: echo(envValue) });
    await emu.control("POST", "/faults", { kind: "status", status: 400, method: "PUT", pathRegex: "^/v1/services/[^/]+/secret-files$", message: echo(standaloneFile) });
    const outs: string[] = [];
    let failure = "";
    await s.stack.up({ onOutput: (o) => outs.push(o) }).catch((e: Error) => (failure = `${e.message}\n${e.stack ?? ""}`));
    // both failed with the echoing error, masked
    expect(failure).toMatch(/signing[\s\S]*value '\*\*\*' was refused/);
    expect(failure).toMatch(/creds[\s\S]*value '\*\*\*' was refused/);
    expect(leaked(failure)).toEqual([]);
    expect(leaked(outs.join(""))).toEqual([]);
    expect(leaked(s.rawState())).toEqual([]);

    await emu.control("DELETE", "/faults");
    await s.stack.destroy();
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
