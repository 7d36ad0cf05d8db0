// The command line: --help documents every flag (and docs/emulator.md names them all), and the printed
// line carries what a user's own tests need: the base URL, keys, a sign-in and the DNS address.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FLAGS, helpText } from "../../emulator/cli";

const CLI = join(__dirname, "../../dist/emulator/cli.js");

test("--help lists every flag the CLI parses, and the usage line of docs/emulator.md names each one", () => {
  // The table the CLI's parser reads (parseArgs({ options: FLAGS })).
  const declared = Object.keys(FLAGS);
  expect(declared).toEqual(expect.arrayContaining(["port", "state", "speed", "dns-port", "delegate", "help"]));
  const help = helpText();
  const readme = readFileSync(join(__dirname, "../../docs/emulator.md"), "utf8");
  for (const flag of declared) {
    expect(help).toMatch(new RegExp(`--${flag}\\b.*\\S{3,}`));
    if (flag !== "help") expect(readme).toContain(`--${flag}`);
  }
});

test("the built CLI prints one JSON line with keys, a sign-in and the DNS address, and stops on SIGTERM", async () => {
  const child = spawn(process.execPath, [CLI, "--speed", "0", "--dns-port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  const line = await new Promise<string>((ok, fail) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n")) ok(out.split("\n")[0]);
    });
    child.on("exit", (code) => fail(new Error(`exited ${code}`)));
  });
  const printed = JSON.parse(line);
  expect(printed).toMatchObject({
    baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), dnsAddress: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
    apiKey: expect.stringMatching(/^svc_live_/), login: { email: "owner@example.test", password: expect.any(String) },
  });
  const res = await fetch(`${printed.baseUrl}/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(printed.login) });
  expect(res.status).toBe(200);
  const exited = new Promise((ok) => child.on("exit", ok));
  child.kill("SIGTERM");
  expect(await exited).toBe(0);
});

test("a SIGTERM sent the moment the startup line arrives stops the emulator gracefully (exit 0), every time", async () => {
  // The line used to be written before the signal handlers were installed: a reader that signalled
  // at once killed the process (exit by SIGTERM) about two times in three.
  const ends: unknown[] = [];
  for (let i = 0; i < 5; i++) {
    const child = spawn(process.execPath, [CLI, "--speed", "0"], { stdio: ["ignore", "pipe", "ignore"] });
    const exited = new Promise((ok) => child.on("exit", (code, signal) => ok(signal ?? code)));
    await new Promise<void>((ok) => {
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
        if (!out.includes("\n")) return;
        child.kill("SIGTERM");
        ok();
      });
    });
    ends.push(await exited);
  }
  expect(ends).toEqual(Array(5).fill(0));
});
