// The app's own test: sends through the sandbox key from the verified domain, then asserts what
// was sent (the emulator's outbox) and the simulated outcomes read back from the API.
// Needs CLOUDPLATFORM_BASE_URL, MAIL_API_KEY (a mail_test_ key) and MAIL_FROM (the stack's fromAddress).
import { sendWelcome } from "./mailer";

const baseUrl = process.env.CLOUDPLATFORM_BASE_URL!;
const opts = { baseUrl, apiKey: process.env.MAIL_API_KEY!, from: process.env.MAIL_FROM! };
const SANDBOX = process.env.TEST_MAIL_DOMAIN ?? "sandbox.cloudplatform.test";
const label = Date.now().toString(36);

const outbox = async (to: string) => ((await (await fetch(`${baseUrl}/_emulator/mail/outbox?to=${encodeURIComponent(to)}`)).json()) as { data: any[] }).data;
const readBack = async (id: string) =>
  (await (await fetch(`${baseUrl}/v1/emails/${id}`, { headers: { authorization: `Bearer ${opts.apiKey}` } })).json()) as any;

test("the welcome mail goes out from the verified domain, addressed and worded as intended", async () => {
  expect(opts.apiKey).toMatch(/^mail_test_/);
  const to = `delivered+${label}@${SANDBOX}`;
  const sent = await sendWelcome(opts, to, "Ada");
  expect(sent).toMatchObject({ status: "delivered", sandbox: true });
  const [mail] = await outbox(to);
  expect(mail).toMatchObject({ id: sent.id, from: opts.from, to, subject: "Welcome, Ada", tags: { kind: "welcome" }, sandbox: true });
  expect(mail.html).toContain("Hello Ada");
  expect(await readBack(sent.id)).toMatchObject({ id: sent.id, status: "delivered", sandbox: true });
});

test("a retried send is delivered once; a bounce reads back as bounced", async () => {
  const to = `bounced+${label}@${SANDBOX}`;
  const first = await sendWelcome(opts, to, "Bo", `welcome-${label}`);
  const retry = await sendWelcome(opts, to, "Bo", `welcome-${label}`);
  expect(retry.id).toBe(first.id);
  expect(await outbox(to)).toHaveLength(1);
  expect(await readBack(first.id)).toMatchObject({ status: "bounced", sandbox: true });
});
