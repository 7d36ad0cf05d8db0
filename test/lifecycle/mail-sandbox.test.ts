// The mail-sandbox example through the real Pulumi CLI: up verifies the sending domain, the app's
// mail code sends from it with the sandbox key, the outbox and the read-back show what was sent and
// the simulated outcomes, the app's own test suite passes against the same stack, and destroy
// leaves nothing behind.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { sendWelcome } from "../../examples/mail-sandbox/app/mailer";
import { emulator, type TestEmulator } from "../support/emulator";
import { changes, EXAMPLES, expectNoDrift, testStack } from "../support/stack";
import { ROOT } from "../../scripts/pulumi-env";

jest.setTimeout(240_000);

const DOMAIN = "sandbox-app.test";
let emu: TestEmulator;
beforeAll(async () => {
  emu = await emulator({ settings: { speed: 0, dnsPropagationMs: 500 } });
  await emu.control("POST", "/dns/delegations", { domain: DOMAIN });
});
afterAll(async () => emu?.close());

test("mail-sandbox: up, the app sends through the sandbox from the verified domain, outbox and read-back, destroy", async () => {
  const s = await testStack(emu, join(EXAMPLES, "mail-sandbox"), { domain: DOMAIN, timeout: "60s" });
  try {
    const up = await s.stack.up();
    expect(changes(up)).toEqual({ create: 7 });
    const from = up.outputs.fromAddress.value as string;
    expect(up.outputs.mailStatus.value).toBe("VERIFIED");
    expect(from).toBe(`Example App <hello@mail.${DOMAIN}>`);
    await expectNoDrift(s);

    // the app's sending code, with the sandbox key
    const opts = { baseUrl: emu.baseUrl, apiKey: emu.keys.sandbox, from };
    const delivered = await sendWelcome(opts, `delivered@${emu.testMailDomain}`, "Ada");
    const complained = await sendWelcome(opts, `complained@${emu.testMailDomain}`, "Cy");
    expect(delivered).toEqual({ id: expect.any(String), status: "delivered", sandbox: true });
    expect(complained).toEqual({ id: expect.any(String), status: "complained", sandbox: true });
    const outbox = (await emu.control("GET", "/mail/outbox")).data;
    expect(outbox.map((m: any) => [m.to, m.from, m.subject, m.status, m.sandbox])).toEqual([
      [`delivered@${emu.testMailDomain}`, from, "Welcome, Ada", "delivered", true],
      [`complained@${emu.testMailDomain}`, from, "Welcome, Cy", "complained", true],
    ]);
    const sandbox = emu.client(emu.keys.sandbox);
    expect(await sandbox.get<any>(`/v1/emails/${complained.id}`)).toMatchObject({ status: "complained", sandbox: true, tags: { kind: "welcome" } });
    // the complaint suppressed the address: the next welcome is not mailed, and the app logs it
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    expect(await sendWelcome(opts, `complained@${emu.testMailDomain}`, "Cy")).toMatchObject({ status: "rejected", rejected: [{ reason: "suppressed" }] });
    expect(warn.mock.calls).toEqual([[`not mailed: complained@${emu.testMailDomain} (suppressed)`]]);
    warn.mockRestore();
    // nothing was billed against the domain's quota
    const limits = await sandbox.get<any>("/v1/limits");
    expect(limits.domains.find((d: any) => d.name === `mail.${DOMAIN}`)).toMatchObject({ daily_quota: 200, sent_today: 0 });

    // the app's own test suite, run as a user would, against the same emulator and stack
    const run = await promisify(execFile)(process.execPath, [join(ROOT, "node_modules", "jest", "bin", "jest.js"), "-c", "jest.config.js", "--ci"], {
      cwd: join(EXAMPLES, "mail-sandbox"),
      env: { ...process.env, CLOUDPLATFORM_BASE_URL: emu.baseUrl, MAIL_API_KEY: emu.keys.sandbox, MAIL_FROM: from, TEST_MAIL_DOMAIN: emu.testMailDomain },
    });
    expect(run.stderr).toContain("Tests:       2 passed, 2 total");

    // mail is not infrastructure: the test clears what its sends left, then destroy removes the rest
    await emu.control("DELETE", "/mail/outbox");
    await emu.control("DELETE", "/mail/suppressions");
    const down = await s.stack.destroy();
    expect(down.summary.resourceChanges).toEqual({ delete: 7 });
    expect(await emu.leftovers()).toEqual({});
  } finally {
    await s.dispose();
  }
});
