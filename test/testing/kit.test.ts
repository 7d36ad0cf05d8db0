// @pulumi-cloudplatform/emulator/testing's pieces on their own: the emulator options by the CLI flags'
// names, the worker's environment, the link extraction, waitForEmail, reset, the S3 preset, the
// database helpers, and the Vitest global setup (called as Vitest calls it).
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FLAGS } from "../../emulator/cli";
import { normalizeOptions } from "../../emulator/options";
import {
  connectDatabase, createBucket, createDatabase, emulatorCount, ENV, extractLink, links, outbox, reset, s3Client,
  startTestEmulator, vitestGlobalSetup, waitForEmail, workerEnv, type TestEmulator,
} from "../../testing";

jest.setTimeout(120_000);

describe("options by the CLI flags' names", () => {
  test("state, speed, delegate, dnsPropagationMs, sendRate, rateLimit and rateBurst map onto the settings", () => {
    expect(normalizeOptions({ state: "/tmp/s", speed: 0, delegate: ["a.test"], dnsPropagationMs: 5, sendRate: 60, rateLimit: "2/s", rateBurst: 4 })).toEqual({
      state: "/tmp/s",
      settings: { speed: 0, delegations: ["a.test"], dnsPropagationMs: 5, sendRatePerMinute: 60 },
      rateLimit: { perMinute: 120, burst: 4 },
      allowedHosts: [],
    });
    // the deprecated name still works; the flag-named option wins over `settings`
    expect(normalizeOptions({ stateFile: "/tmp/old", settings: { speed: 1 }, speed: 0 })).toMatchObject({ state: "/tmp/old", settings: { speed: 0 } });
    // allowedHost is --allowed-host's name; allowedHosts, its deprecated one, adds to it
    expect(normalizeOptions({ allowedHost: ["api.internal"], allowedHosts: ["old.internal", "api.internal"] }).allowedHosts).toEqual(["api.internal", "old.internal"]);
  });

  test("every flag of the CLI is passed as the option of its camelCase name", () => {
    // cli.ts's object literal is type-checked against EmulatorOptions, so each of these keys is an option.
    const cli = readFileSync(join(__dirname, "..", "..", "emulator", "cli.ts"), "utf8");
    const call = /await startEmulator\(\{\n([\s\S]*?)\n\s*\}\);/.exec(cli)?.[1] ?? "";
    const passed = [...call.matchAll(/^\s*(\w+):/gm)].map((m) => m[1]).sort();
    const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    expect(passed).toEqual(Object.keys(FLAGS).filter((f) => f !== "help").map(camel).sort());
  });

  test("bad values are refused, naming the option", () => {
    expect(() => normalizeOptions({ speed: -1 })).toThrow("speed must be a non-negative number, got -1");
    expect(() => normalizeOptions({ rateBurst: 3 })).toThrow("rateBurst (--rate-burst) applies only with rateLimit (--rate-limit)");
    expect(() => normalizeOptions({ rateLimit: "fast" })).toThrow("--rate-limit must look like '120/min' or '2/s', got 'fast'");
    expect(() => normalizeOptions({ state: "/a", stateFile: "/b" })).toThrow("state and stateFile (its deprecated name) name different directories");
  });
});

describe("the worker's environment", () => {
  test("each worker picks its own emulator by JEST_WORKER_ID or VITEST_POOL_ID", () => {
    const all = JSON.stringify([{ [ENV.baseUrl]: "http://one" }, { [ENV.baseUrl]: "http://two" }]);
    expect(workerEnv({ CLOUDPLATFORM_TESTING_EMULATORS: all, JEST_WORKER_ID: "2" })?.[ENV.baseUrl]).toBe("http://two");
    expect(workerEnv({ CLOUDPLATFORM_TESTING_EMULATORS: all, VITEST_POOL_ID: "1" })?.[ENV.baseUrl]).toBe("http://one");
    // Vitest's pool id wins over a JEST_WORKER_ID inherited from a Jest run; an empty one is unset
    expect(workerEnv({ CLOUDPLATFORM_TESTING_EMULATORS: all, VITEST_POOL_ID: "2", JEST_WORKER_ID: "1" })?.[ENV.baseUrl]).toBe("http://two");
    expect(workerEnv({ CLOUDPLATFORM_TESTING_EMULATORS: all, JEST_WORKER_ID: "" })?.[ENV.baseUrl]).toBe("http://one");
    expect(workerEnv({})).toBeUndefined();
    expect(() => workerEnv({ CLOUDPLATFORM_TESTING_EMULATORS: all, JEST_WORKER_ID: "x" })).toThrow("the test worker's number is not a positive integer: 'x'");
  });

  test("the count: CLOUDPLATFORM_TEST_EMULATORS, else the runner's workers", () => {
    expect(emulatorCount(3, {})).toBe(3);
    expect(emulatorCount(3, { CLOUDPLATFORM_TEST_EMULATORS: "1" })).toBe(1);
    expect(() => emulatorCount(3, { CLOUDPLATFORM_TEST_EMULATORS: "0" })).toThrow("CLOUDPLATFORM_TEST_EMULATORS must be a positive integer, got '0'");
  });
});

describe("links in a message", () => {
  const message = {
    html: `<p><a href="https://app.test/confirm?token=a1&amp;next=%2F">Confirm</a> <a href='mailto:x@y.test'>mail</a></p><p>https://app.test/help.</p>`,
    text: "Confirm: https://app.test/confirm?token=a1&next=%2F, or see (https://app.test/terms)",
  };
  test("hrefs first, entities decoded, trailing punctuation dropped, no repeats, no mailto", () => {
    expect(links(message)).toEqual(["https://app.test/confirm?token=a1&next=%2F", "https://app.test/help", "https://app.test/terms"]);
    expect(extractLink(message, "/terms")).toBe("https://app.test/terms");
    expect(extractLink(message, /token=\w+/)).toBe("https://app.test/confirm?token=a1&next=%2F");
    expect(extractLink(message)).toBe("https://app.test/confirm?token=a1&next=%2F");
  });
  test("no match names the pattern and lists the links there are", () => {
    expect(() => extractLink(message, "/reset")).toThrow("no link matching /reset in the message (links: https://app.test/confirm?token=a1&next=%2F, https://app.test/help, https://app.test/terms)");
    expect(() => extractLink({ html: null, text: "nothing" })).toThrow("no link in the message (links: none)");
  });
});

describe("against a running emulator", () => {
  let emu: TestEmulator;
  const saved = { ...process.env };
  beforeAll(async () => {
    emu = await startTestEmulator();
    Object.assign(process.env, emu.env);
  });
  afterAll(async () => {
    process.env = saved;
    await emu?.close();
  });

  const send = (to: string, subject: string) =>
    fetch(`${emu.baseUrl}/v1/emails`, {
      method: "POST",
      headers: { authorization: `Bearer ${emu.keys.sandbox}`, "content-type": "application/json" },
      body: JSON.stringify({ from: `app@${emu.testMailDomain}`, to, subject, text: `see https://app.test/${subject}` }),
    });

  test("startTestEmulator runs at speed 0 and its env holds what the provider and an S3 client read", () => {
    expect(emu.emu.settings.speed).toBe(0);
    expect(emu.env).toEqual({
      CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey, CLOUDPLATFORM_WORKSPACE_ID: emu.workspaceId,
      CLOUDPLATFORM_MAIL_TEST_KEY: emu.keys.sandbox, CLOUDPLATFORM_TEST_MAIL_DOMAIN: "sandbox.cloudplatform.test",
      CLOUDPLATFORM_S3_ENDPOINT: `${emu.baseUrl}/_storage/${emu.emu.settings.defaultRegion}`, CLOUDPLATFORM_S3_REGION: emu.emu.settings.defaultRegion,
      CLOUDPLATFORM_S3_ACCESS_KEY_ID: expect.any(String), CLOUDPLATFORM_S3_SECRET_ACCESS_KEY: expect.any(String),
    });
  });

  test("waitForEmail waits for a message sent later, picks by subject, and times out naming what came", async () => {
    const to = `wait@${emu.testMailDomain}`;
    // generous: the machine may be loaded; the poll returns as soon as the message is there
    const waiting = waitForEmail(to, { subject: "second", timeoutMs: 60_000 });
    await send(to, "first");
    setImmediate(() => void send(to, "second"));
    expect(await waiting).toMatchObject({ to, subject: "second", sandbox: true });
    await expect(waitForEmail(to, { subject: /third/, timeoutMs: 200 })).rejects.toThrow(`no email to ${to} with subject /third/ within 200 ms (messages to it: 'first', 'second')`);
  });

  test("reset forgets the outbox and what users made; the keys still work", async () => {
    await reset();
    await createBucket("kit-reset");
    await send(`r@${emu.testMailDomain}`, "x");
    expect(await outbox()).toHaveLength(1);
    await reset();
    expect(await outbox()).toEqual([]);
    expect(await (await fetch(`${emu.baseUrl}/_emulator/state`)).json()).toMatchObject({ total: 0 });
    await expect(createBucket("kit-reset")).resolves.toMatchObject({ name: "kit-reset" });
    await reset();
  });

  test("the S3 preset reaches a bucket through the class it is given", async () => {
    await createBucket("kit-s3");
    const s3 = s3Client(S3Client, { maxAttempts: 1 });
    try {
      await s3.send(new PutObjectCommand({ Bucket: "kit-s3", Key: "a.txt", Body: "hello" }));
      const got = await s3.send(new GetObjectCommand({ Bucket: "kit-s3", Key: "a.txt" }));
      expect(await got.Body!.transformToString()).toBe("hello");
    } finally {
      s3.destroy();
      await reset();
    }
  });

  test("createDatabase and connectDatabase: a pg client on the service's loopback listener, by id or URL", async () => {
    const db = await createDatabase("kitdb");
    expect(db.url).toMatch(/^postgresql:\/\/[^:]+:[^@]+@127\.0\.0\.1:\d+\/\w+$/);
    for (const target of [db.serviceId, db.url]) {
      const c = await connectDatabase(target);
      try {
        expect((await c.query("SELECT 40 + 2 AS n")).rows).toEqual([{ n: 42 }]);
      } finally {
        await c.end();
      }
    }
    await reset();
  });
});

test("the Vitest global setup, called as Vitest calls it: one emulator per worker in the environment, stopped by its teardown", async () => {
  const before = process.env.CLOUDPLATFORM_TESTING_EMULATORS;
  const teardown = await vitestGlobalSetup({ speed: 0 })({ config: { maxWorkers: 2 } });
  let urls: string[] = [];
  try {
    const list = JSON.parse(process.env.CLOUDPLATFORM_TESTING_EMULATORS!) as Record<string, string>[];
    urls = list.map((e) => e[ENV.baseUrl]);
    expect(new Set(urls).size).toBe(2);
    expect(process.env[ENV.baseUrl]).toBe(urls[0]);
    for (const u of urls) expect((await fetch(`${u}/_emulator/health`)).status).toBe(200);
  } finally {
    await teardown();
  }
  expect(process.env.CLOUDPLATFORM_TESTING_EMULATORS).toBe(before);
  for (const u of urls) await expect(fetch(`${u}/_emulator/health`)).rejects.toThrow();
});
