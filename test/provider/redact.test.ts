// No secret in any provider error: every value the schema marks secret (env var values, secret file
// contents, passwords, keys) is masked wherever an error or a log line carries it, as sent, JSON-
// escaped, URL-encoded or one line of a multi-line value. The API echoes random secrets back in
// its error bodies (the emulator's status faults with a message); the operations' errors never
// hold them. A baseUrl's credentials never show, and plain http leaves the machine only when asked.
import fc from "fast-check";
import { CloudPlatformClient, ConfigurationError } from "../../provider/client";
import { resolveConfig } from "../../provider/config";
import { Operations } from "../../provider/operations";
import { configFailures } from "../../provider/plugin/config";
import { MIN_SECRET_CHARS, Redactor, secretStrings } from "../../provider/redact";
import { resources } from "../../provider/resources";
import { emulator, type TestEmulator } from "../support/emulator";
import { failure } from "../support/helpers";

/** Printable text, unicode, quotes and backslashes, and several lines; never a mask character. */
const line = fc.string({ unit: fc.oneof(fc.constantFrom('"', "\\", "'", "<", "&", " ", "\t", "é", "€", "😀"), fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 })), minLength: 6, maxLength: 40 })
  .filter((s) => !s.includes("*") && s.trim().length >= MIN_SECRET_CHARS);
const secret = fc.oneof(line, fc.array(line, { minLength: 2, maxLength: 4 }).map((ls) => ls.join("\n")));

/** What must not be found: the value, and each line of it long enough to be masked. */
const pieces = (s: string) => [s, ...s.split(/\r\n|\r|\n/).map((l) => l.trim()).filter((l) => l.length >= MIN_SECRET_CHARS)];
const leaks = (text: string, s: string) => pieces(s).filter((p) => text.includes(p) || text.includes(JSON.stringify(p).slice(1, -1)));

test("a secret is masked in every form an echoed body carries it", () => {
  fc.assert(fc.property(secret, fc.string({ maxLength: 20 }), (s, around) => {
    const r = new Redactor([s]);
    const texts = [
      `value '${s}' is invalid${around}`,
      JSON.stringify({ error: "Bad Request", message: `${around}${s}` }),
      JSON.stringify(JSON.stringify({ value: s })),
      `?value=${encodeURIComponent(s)}&x=${around}`,
      ...s.split("\n").map((l) => `line: ${l} ${around}`),
    ];
    for (const t of texts) expect(leaks(r.redact(t), s)).toEqual([]);
  }), { numRuns: 300 });
});

test("the secrets of a kind: whole secret outputs, nested secret paths, values marked secret", () => {
  const service = resources.Service;
  const props = {
    name: "web", dbPassword: "pw-123456", connection: { url: "postgres://u:p@h/db" },
    envVars: [{ key: "A", value: "plain-value", secret: false }, { key: "B", value: "hidden-value", secret: true }],
    secretFiles: [{ path: "/x", content: "file\ncontent-line" }],
    image: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: "marked-secret" },
  };
  const found = secretStrings(service, props);
  expect(found.sort()).toEqual(["file\ncontent-line", "hidden-value", "marked-secret", "postgres://u:p@h/db", "pw-123456"].sort());
  expect(found).not.toContain("plain-value");
});

test("credentials in a URL are masked, and a client names none", () => {
  const r = new Redactor([]);
  expect(r.redact("GET https://user:pa55@api.example.com/v1 failed")).toBe("GET https://***@api.example.com/v1 failed");
  expect(r.redact("to http://token@10.0.0.1:8080/x")).toBe("to http://***@10.0.0.1:8080/x");
  const key = `svc_live_${"k".repeat(40)}`;
  const bad = (() => {
    try {
      new CloudPlatformClient({ apiKey: key, baseUrl: "https://user:pa55@[bad" });
    } catch (e) {
      return e as Error;
    }
  })();
  expect(bad?.message).toContain("https://***@[bad");
  expect(bad?.message).not.toContain("pa55");
  const c = new CloudPlatformClient({ apiKey: key, baseUrl: "https://user:pa55@api.example.com" });
  expect(JSON.stringify(c)).not.toContain("pa55");
  expect(configFailures({ baseUrl: "ftp://user:pa55@host" })[0].reason).toBe("baseUrl: 'ftp://***@host' is not an http(s) URL");
});

test("plain http to a host that is not loopback is refused unless insecure is set", () => {
  const key = `svc_live_${"k".repeat(40)}`;
  const make = (baseUrl: string, insecure?: boolean) => () => new CloudPlatformClient({ apiKey: key, baseUrl, insecure });
  expect(make("http://api.example.com")).toThrow(ConfigurationError);
  expect(make("http://api.example.com")).toThrow(/plain http to api\.example\.com.*insecure: true/);
  expect(make("http://10.1.2.3:4510")).toThrow(/clear text/);
  for (const ok of ["http://127.0.0.1:4510", "http://localhost:4510", "http://[::1]:4510", "http://app.localhost", "https://api.example.com"]) expect(make(ok)).not.toThrow();
  expect(make("http://api.example.com", true)).not.toThrow();
  // the setting, from config or the environment
  expect(resolveConfig(() => undefined, { CLOUDPLATFORM_INSECURE: "true" }).insecure).toBe(true);
  expect(resolveConfig((k) => (k === "cloudplatform:insecure" ? "false" : undefined), {}).insecure).toBe(false);
  expect(configFailures({ insecure: "maybe" })).toEqual([{ property: "insecure", reason: "insecure: must be true or false" }]);
  expect(configFailures({ insecure: true })).toEqual([]);
});

describe("against the emulator", () => {
  let emu: TestEmulator;
  let ops: Operations;
  beforeAll(async () => {
    emu = await emulator({ settings: { speed: 0 } });
    ops = new Operations({ apiKey: emu.apiKey, baseUrl: emu.baseUrl, workspaceId: emu.workspaceId });
  });
  afterAll(async () => {
    await ops.context().client.close();
    await emu.close();
  });

  test("random secrets echoed back in API error bodies never reach an operation's error", async () => {
    const logged: string[] = [];
    await fc.assert(fc.asyncProperty(secret, secret, fc.constantFrom("plain", "json", "url", "lines"), async (value, content, form) => {
      const echo = (s: string) =>
        form === "json" ? JSON.stringify({ rejected: s }) : form === "url" ? `/v1/x?v=${encodeURIComponent(s)}` : form === "lines" ? s.split("\n").reverse().join(" | ") : s;
      const fault = (s: string) => emu.control("POST", "/faults", { kind: "status", status: 400, count: 1, message: `invalid input: ${echo(s)}; key ${emu.apiKey}` });
      await fault(value);
      const envVar = await failure(ops.create("EnvVar", { serviceId: "svc_fake", key: "K", value, scope: "ALL", secret: true }, { log: (m) => logged.push(m) }));
      await fault(content);
      const secretFile = await failure(ops.create("SecretFile", { serviceId: "svc_fake", path: "/etc/x", content }));
      for (const [err, s] of [[envVar, value], [secretFile, content]] as const) {
        expect(err.message).toContain("invalid input");
        expect(leaks(err.message, s)).toEqual([]);
        expect(err.message).not.toContain(emu.apiKey);
      }
    }), { numRuns: 40 });
    for (const l of logged) expect(l).not.toContain(emu.apiKey);
  });
});
