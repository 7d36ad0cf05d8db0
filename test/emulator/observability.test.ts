// What the emulator says about itself: `--log` writes structured JSON lines to stderr (HTTP, DNS,
// mail, state), never a key or a secret, and stdout keeps its one JSON line; a 500 leaves its stack
// on stderr with or without `--log`; an IPv6 host gives bracketed URLs wherever the emulator builds one.
import { type ChildProcess, spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { createServer } from "node:net";
import { join } from "node:path";
import * as packet from "dns-packet";
import { hostPort } from "../../emulator";
import * as views from "../../emulator/models/service-views";
import { emulator } from "../support/emulator";

const CLI = join(__dirname, "../../dist/emulator/cli.js");

/** Whether this machine can listen on the IPv6 loopback (some containers cannot). */
const ipv6 = new Promise<boolean>((ok) => {
  const s = createServer().once("error", () => ok(false)).listen(0, "::1", () => s.close(() => ok(true)));
});

interface Running {
  child: ChildProcess;
  printed: any;
  stdout: () => string;
  stderr: () => string;
  stop(): Promise<number | null>;
}

async function cli(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  const line = await new Promise<string>((ok, fail) => {
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("\n")) ok(out.split("\n")[0]);
    });
    child.on("exit", (code) => fail(new Error(`exited ${code}: ${err}`)));
  });
  return {
    child, printed: JSON.parse(line), stdout: () => out, stderr: () => err,
    stop: () => new Promise((ok) => (child.on("exit", ok), child.kill("SIGTERM"))),
  };
}

function dnsQuery(address: string, name: string, type: string): Promise<packet.DecodedPacket> {
  const m = /^\[?(.*?)\]?:(\d+)$/.exec(address)!;
  const socket = createSocket(m[1].includes(":") ? "udp6" : "udp4");
  const msg = packet.encode({ type: "query", id: 7, flags: packet.RECURSION_DESIRED, questions: [{ type: type as packet.RecordType, name }] });
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => (socket.close(), fail(new Error("no DNS answer"))), 3000);
    socket.on("message", (r) => (clearTimeout(timer), socket.close(), ok(packet.decode(r))));
    socket.send(msg, Number(m[2]), m[1]);
  });
}

test("hostPort brackets IPv6 addresses (and escapes a zone id), leaves names and IPv4 alone", () => {
  expect(hostPort("::1", 80)).toBe("[::1]:80");
  expect(hostPort("fe80::1%eth0", 80)).toBe("[fe80::1%25eth0]:80");
  expect(hostPort("127.0.0.1", 80)).toBe("127.0.0.1:80");
  expect(hostPort("localhost", 80)).toBe("localhost:80");
});

test("--log: JSON lines on stderr for HTTP, DNS, mail and state, no key or secret in them; stdout holds only the startup line; IPv6 URLs are bracketed", async () => {
  const v6 = await ipv6;
  const host = v6 ? "::1" : "127.0.0.1";
  const emu = await cli(["--log", "--speed", "0", "--dns-port", "0", "--host", host]);
  try {
    const { baseUrl, dnsAddress, apiKey, keys, login, storageKeys, testMailDomain } = emu.printed;
    if (v6) {
      expect(baseUrl).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect(dnsAddress).toMatch(/^\[::1\]:\d+$/);
    } else {
      console.warn("IPv6 loopback unavailable here: the bracketed-URL half of this test did not run");
    }
    const api = (method: string, path: string, body?: unknown, key = apiKey) =>
      fetch(`${baseUrl}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });

    // HTTP, with a presigned URL whose signature must not reach the log.
    expect((await api("GET", "/v1/me")).status).toBe(200);
    const bucket = await (await api("POST", `/v1/workspaces/${emu.printed.workspaceId}/buckets`, { name: "logged-bucket" })).json() as any;
    expect(bucket.endpoint.startsWith(`${baseUrl}/`)).toBe(true);
    const upload = await (await api("POST", "/v1/static-uploads", { filename: "index.html", contentType: "text/html", sizeBytes: 5 })).json() as any;
    expect(upload.url.startsWith(`${baseUrl}/_uploads/`)).toBe(true);
    const signature = new URL(upload.url).searchParams.get("signature")!;
    const put = await fetch(upload.url, { method: upload.method, headers: Object.fromEntries(upload.headers.map((h: any) => [h.name, h.value])), body: "<p/>!" });
    expect(put.status).toBe(200);
    // DNS: one query over UDP.
    expect(((await dnsQuery(dnsAddress, "nothing.example.test", "A")) as unknown as { rcode: string }).rcode).toBe("NXDOMAIN");
    // Mail: a sandbox send and its outcome.
    const sent = await (await api("POST", "/v1/emails", { from: `app@${testMailDomain}`, to: `bounced@${testMailDomain}`, subject: "Hi", text: "secret body text" }, keys.sandbox)).json() as any;
    expect(sent).toMatchObject({ status: "bounced", sandbox: true });
    // State: a reset.
    await fetch(`${baseUrl}/_emulator/reset`, { method: "POST", headers: { "content-type": "application/json" } });

    const deadline = Date.now() + 5_000;
    while (!/"kind":"state"/.test(emu.stderr()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(emu.stdout().trim().split("\n")).toHaveLength(1);
    const lines = emu.stderr().trim().split("\n");
    const events = lines.map((l) => JSON.parse(l));
    expect(events.every((e) => typeof e.time === "string" && typeof e.kind === "string" && typeof e.msg === "string")).toBe(true);
    expect(events).toEqual(expect.arrayContaining([
      expect.objectContaining({ kind: "http", method: "GET", route: "/v1/me", status: 200, ms: expect.any(Number), requestId: expect.stringMatching(/^req_/) }),
      expect.objectContaining({ kind: "http", method: "PUT", route: "/_uploads/:uploadId", status: 200 }),
      expect.objectContaining({ kind: "dns", name: "nothing.example.test", type: "A", rcode: "NXDOMAIN", transport: "udp" }),
      expect.objectContaining({ kind: "mail", event: "accepted", id: sent.id, sandbox: true }),
      expect.objectContaining({ kind: "mail", event: "bounced", id: sent.id }),
      expect.objectContaining({ kind: "mail", event: "suppressed", address: `bounced@${testMailDomain}` }),
      expect.objectContaining({ kind: "state", msg: expect.stringContaining("reset") }),
    ]));
    const secrets = [apiKey, ...Object.values(keys as Record<string, string>), login.password, signature, ...storageKeys.map((k: any) => k.secret), "secret body text"];
    for (const s of secrets) expect(emu.stderr()).not.toContain(s);
  } finally {
    expect(await emu.stop()).toBe(0);
  }
});

test("a 500 logs its stack on stderr without --log; the caller sees only 'Internal server error' and the request id", async () => {
  const emu = await emulator({ settings: { speed: 0 } });
  const written: string[] = [];
  const spy = jest.spyOn(process.stderr, "write").mockImplementation((chunk: any) => (written.push(String(chunk)), true));
  try {
    // The service's view fails inside the route, as a bug would.
    const api = emu.client();
    const project = await api.create<any>(`/v1/workspaces/${emu.workspaceId}/projects`, { name: "broken" });
    const env = await api.create<any>(`/v1/projects/${project.id}/environments`, { name: "dev" });
    const svc = await api.create<any>(`/v1/environments/${env.id}/services`, { name: "web", type: "WEB", image: "nginx:1.27" });
    jest.spyOn(views, "serviceView").mockImplementationOnce(() => {
      throw new TypeError("Cannot read properties of null (reading 'toLowerCase')");
    });
    const path = `/v1/services/${svc.id}`;
    const res = await fetch(`${emu.baseUrl}${path}`, { headers: { authorization: `Bearer ${emu.apiKey}` } });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ statusCode: 500, message: "Internal server error", error: "Internal Server Error" });
    const logged = written.map((w) => JSON.parse(w)).find((e) => e.kind === "error");
    expect(logged).toMatchObject({ kind: "error", requestId: res.headers.get("x-request-id"), stack: expect.stringMatching(/Error/), msg: expect.stringContaining(`GET ${path}`) });
    expect(written.join("")).not.toContain(emu.apiKey);
  } finally {
    spy.mockRestore();
    await emu.close();
  }
});
