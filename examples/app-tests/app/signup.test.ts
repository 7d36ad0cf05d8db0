// The app's own tests, on @pulumi-cloudplatform/emulator/testing: the global setup (jest.config.js) gives
// this worker an emulator and its keys in the environment; each test starts from an empty one.
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { Client as PgClient } from "pg";
import { connectDatabase, createBucket, createDatabase, ENV, extractLink, outbox, reset, s3Client, waitForEmail } from "@pulumi-cloudplatform/emulator/testing";
import { type AppConfig, createApp, migrate } from "./signup";

const SANDBOX = process.env[ENV.testMailDomain]!;
let server: Server;
let db: PgClient;
let s3: S3Client;
let appUrl: string;

beforeEach(async () => {
  await reset();
  const database = await createDatabase("signups");
  db = await connectDatabase(database.url);
  await migrate(db);
  await createBucket("avatars-bucket");
  s3 = s3Client(S3Client);
  const config: AppConfig = {
    db,
    s3,
    bucket: "avatars-bucket",
    // A sandbox mail key sends from and to the test mail domain; nothing leaves the emulator.
    mail: { baseUrl: process.env[ENV.baseUrl]!, apiKey: process.env[ENV.mailTestKey]!, from: `Sign-ups <hello@${SANDBOX}>` },
    publicUrl: "",
  };
  server = createApp(config);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // The links in the mail point at the app itself.
  appUrl = config.publicUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  await db.end();
  s3.destroy();
});

const post = (path: string, body: unknown) =>
  fetch(`${appUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

test("sign-up mails a confirmation link; following it confirms the address in the database", async () => {
  const to = `ada@${SANDBOX}`;
  expect((await post("/signup", { email: to })).status).toBe(202);
  const mail = await waitForEmail(to, { subject: "Confirm" });
  expect(mail).toMatchObject({ to, from: `Sign-ups <hello@${SANDBOX}>`, sandbox: true });
  const link = extractLink(mail, "/confirm?token=");
  expect(link.startsWith(`${appUrl}/confirm?token=`)).toBe(true);
  const confirm = await fetch(link);
  expect([confirm.status, await confirm.json()]).toEqual([200, { confirmed: to }]);
  const { rows } = await db.query("SELECT email, confirmed FROM signups");
  expect(rows).toEqual([{ email: to, confirmed: true }]);
});

test("a second sign-up of the same address is refused, and mails nothing more", async () => {
  const to = `bo@${SANDBOX}`;
  expect((await post("/signup", { email: to })).status).toBe(202);
  expect((await post("/signup", { email: to })).status).toBe(409);
  expect((await post("/signup", { email: "not-an-address" })).status).toBe(400);
  expect(await outbox(to)).toHaveLength(1);
});

test("an avatar goes into the bucket, and reads back through the S3 API", async () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
  const put = await fetch(`${appUrl}/avatars/7`, { method: "PUT", body: png });
  expect([put.status, await put.json()]).toEqual([201, { key: "avatars/7.png" }]);
  const got = await s3.send(new GetObjectCommand({ Bucket: "avatars-bucket", Key: "avatars/7.png" }));
  expect(Buffer.from(await got.Body!.transformToByteArray())).toEqual(png);
  expect(got.ContentType).toBe("image/png");
});

test("each test starts from an empty emulator: reset() forgot the last test's mail and rows", async () => {
  expect(await outbox()).toEqual([]);
  const { rows } = await db.query("SELECT count(*)::int AS n FROM signups");
  expect(rows).toEqual([{ n: 0 }]);
});
