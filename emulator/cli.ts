#!/usr/bin/env node
// cloudplatform-emulator [flags]: prints one JSON line with the base URL, keys and a sign-in, then
// serves until SIGINT or SIGTERM; `cloudplatform-emulator outbox` reads a running one's mail outbox. Every flag is declared once in FLAGS, which also makes --help.
import { parseArgs } from "node:util";
import { startEmulator } from "./index";
import { TOKEN_ENV, TOKEN_HEADER } from "./control-token";

interface Flag {
  type: "string" | "boolean";
  /** What the value looks like in the help, e.g. N or FILE. */
  value?: string;
  multiple?: boolean;
  short?: string;
  help: string;
}

export const FLAGS: Record<string, Flag> = {
  port: { type: "string", value: "N", help: "HTTP port of the API and the control routes (default: any free port)" },
  host: { type: "string", value: "ADDR", help: "address to listen on (default 127.0.0.1; ::1 for IPv6, printed in brackets); any address but loopback needs --control-token" },
  "control-token": { type: "string", value: "TOKEN", help: `the control API (/_emulator) and the dashboard need this token (at least 16 characters; default: $${TOKEN_ENV}); send it as ${TOKEN_HEADER}: TOKEN, sign in to the dashboard with it` },
  "allowed-host": { type: "string", value: "NAME", multiple: true, help: "also answer requests whose Host is NAME, e.g. a container's service name (repeatable; loopback names and IP addresses are always answered)" },
  state: { type: "string", value: "DIR", help: "keep the state in this directory across restarts (made if missing; see 'state' below)" },
  speed: { type: "string", value: "X", help: "scale every lifecycle (provisioning, builds, deploys, cron runs); 0 makes them instant (default 1)" },
  "dns-propagation-ms": { type: "string", value: "N", help: "delay before a new or changed public DNS record is visible (default 0)" },
  delegate: { type: "string", value: "DOMAIN", multiple: true, help: "point DOMAIN's public nameservers at the platform (repeatable)" },
  "dns-port": { type: "string", value: "N", help: "also serve the simulated public DNS on this port, UDP and TCP (0 picks one; printed as dnsAddress)" },
  "dns-host": { type: "string", value: "ADDR", help: "address of the DNS server (default: --host when it is loopback, else 127.0.0.1); any other address answers anyone, and the startup line says so in exposed" },
  "send-rate": { type: "string", value: "N", help: "email send requests per minute per key (default 3000)" },
  "rate-limit": { type: "string", value: "N/min", help: "answer 429 with Retry-After once an API key exceeds N requests per minute (token bucket; also N/s)" },
  "rate-burst": { type: "string", value: "N", help: "requests a key may make at once before --rate-limit applies (default: one second's worth)" },
  log: { type: "boolean", help: "write structured JSON lines to stderr: HTTP requests, DNS queries, mail and state events (never a key or a secret); errors are written there either way" },
  help: { type: "boolean", short: "h", help: "print this help and exit" },
};

export function helpText(): string {
  const rows = Object.entries(FLAGS).map(([name, f]) => [`${f.short ? `-${f.short}, ` : "    "}--${name}${f.value ? ` ${f.value}` : ""}`, f.help]);
  const width = Math.max(...rows.map(([l]) => l.length)) + 2;
  return [
    "usage: cloudplatform-emulator [flags]",
    "       cloudplatform-emulator outbox --base-url URL [--to ADDRESS] [--since DATE] [--clear] [--control-token TOKEN]",
    "",
    "A local emulator of the cloud platform API. Prints one JSON line (baseUrl, workspaceId,",
    "otherWorkspaceId, apiKey, keys, login, storageKeys, testMailDomain, and dnsAddress with",
    "--dns-port; exposed, when anything listens beyond loopback), then serves until SIGINT or SIGTERM.",
    "The dashboard, a live view of everything it holds, is at dashboardUrl ({baseUrl}/_emulator/ui/).",
    "",
    "safety (on by default): requests whose Host is not localhost, an IP address, the --host name or an --allowed-host",
    "  name are refused (DNS rebinding); control requests and the dashboard's JSON must come from the emulator's own",
    "  origin, and those that change something must be application/json (no web page can send them); the dashboard",
    "  cannot be framed; each rule applies to the route a request reaches, however its path is spelled. Serving",
    "  beyond loopback needs --control-token; the DNS server stays on loopback unless --dns-host says otherwise. The",
    "  state directory is kept 0700 and its files 0600. See docs/security.md.",
    "",
    "flags:",
    ...rows.map(([l, h]) => `  ${l.padEnd(width)}${h}`),
    "",
    "state: with --state DIR, a restart finds what the last run had: every object users made (projects, services,",
    "  deploys, cron runs, DNS zones and records, mail domains, emails and the outbox, buckets and their objects,",
    "  sites...), keys and sessions, DNS delegations (--delegate adds to them), records at the external DNS host,",
    "  the propagation delay (unless --dns-propagation-ms is given) and the clock offset. A change is on disk before",
    "  its answer leaves, so an answered write survives even a SIGKILL. Not kept: faults, counters, rate limits and",
    "  their windows, login attempts, the dashboard's request log, and the other flags. Database services keep",
    "  their data and backup dumps in DIR/data. A legacy JSON state file at DIR is converted, and kept beside it",
    "  as DIR.v1.json.",
    "",
    "outbox: prints the messages a running emulator accepted (sandbox or not) as JSON, oldest first",
    "  --base-url URL   the running emulator (its startup line's baseUrl)",
    `  --control-token TOKEN  the emulator's control token, if it has one (default: $${TOKEN_ENV})`,
    "  --to ADDRESS     only messages to (or cc/bcc) this address",
    "  --since DATE     only messages since YYYY-MM-DD or an ISO date-time",
    "  --clear          empty the outbox instead of printing it",
    "",
  ].join("\n");
}

/** `outbox`: reads or clears GET/DELETE /_emulator/mail/outbox of a running emulator. */
async function outboxCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { "base-url": { type: "string" }, to: { type: "string" }, since: { type: "string" }, clear: { type: "boolean" }, "control-token": { type: "string" } },
  });
  const base = values["base-url"] ?? process.env.CLOUDPLATFORM_BASE_URL;
  if (!base) throw new Error("outbox: give --base-url URL (the emulator's baseUrl)");
  const query = new URLSearchParams();
  if (values.to) query.set("to", values.to);
  if (values.since) query.set("since", values.since);
  const url = `${base.replace(/\/+$/, "")}/_emulator/mail/outbox${values.clear ? "" : `?${query}`}`;
  const token = values["control-token"] ?? process.env[TOKEN_ENV];
  const res = await fetch(url, {
    method: values.clear ? "DELETE" : "GET",
    // A change is JSON: the emulator refuses any other control request that changes something.
    headers: { ...(values.clear ? { "content-type": "application/json" } : {}), ...(token ? { [TOKEN_HEADER]: token } : {}) },
  });
  if (!res.ok) throw new Error(`outbox: ${res.status} ${await res.text()}`);
  if (!values.clear) process.stdout.write(JSON.stringify(await res.json(), null, 2) + "\n");
}

async function main(): Promise<void> {
  if (process.argv[2] === "outbox") return outboxCommand(process.argv.slice(3));
  const { values } = parseArgs({ options: FLAGS });
  if (values.help) {
    process.stdout.write(helpText());
    return;
  }
  const num = (v: unknown, name: string): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number, got '${String(v)}'`);
    return n;
  };
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  // The state, dumps and database files hold keys and secrets: nothing this process writes is for other users.
  process.umask(0o077);
  const emulator = await startEmulator({
    port: num(values.port, "port"),
    host: str(values.host),
    state: str(values.state),
    dnsPort: num(values["dns-port"], "dns-port"),
    dnsHost: str(values["dns-host"]),
    log: values.log === true,
    controlToken: str(values["control-token"]) ?? (process.env[TOKEN_ENV] || undefined),
    allowedHost: (values["allowed-host"] as string[] | undefined) ?? [],
    rateLimit: str(values["rate-limit"]),
    rateBurst: num(values["rate-burst"], "rate-burst"),
    dnsPropagationMs: num(values["dns-propagation-ms"], "dns-propagation-ms"),
    speed: num(values.speed, "speed"),
    delegate: (values.delegate as string[] | undefined) ?? [],
    sendRate: num(values["send-rate"], "send-rate"),
  });
  // The emulator never falls over: a fault in one request or timer is logged, and serving goes on.
  const fault = (what: string) => (err: unknown) =>
    emulator.emu.log({ kind: "error", msg: `${what}: ${err instanceof Error ? err.message : String(err)}`, stack: err instanceof Error ? err.stack : undefined });
  process.on("uncaughtException", fault("uncaught exception"));
  process.on("unhandledRejection", fault("unhandled rejection"));
  // The first signal stops gracefully (requests under way finish, then the databases and the state
  // close); a second one exits at once, after writing what the state has not yet written.
  let stopping = false;
  const stop = async () => {
    if (stopping) {
      process.stderr.write("cloudplatform-emulator: stopping now\n");
      try {
        emulator.closeNow();
      } finally {
        process.exit(1);
      }
    }
    stopping = true;
    try {
      await emulator.close();
      process.exit(0);
    } catch (err) {
      process.stderr.write(`cloudplatform-emulator: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    }
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // Only then the startup line: whoever reads it may signal at once, and a signal before the
  // handlers would kill the process instead of stopping it.
  const { baseUrl, dnsAddress, exposed, workspaceId, otherWorkspaceId, apiKey, keys, login, storageKeys, testMailDomain } = emulator;
  process.stdout.write(
    JSON.stringify({
      baseUrl, ...(dnsAddress ? { dnsAddress } : {}), ...(exposed ? { exposed } : {}),
      workspaceId, otherWorkspaceId, apiKey, keys, login, storageKeys, testMailDomain, dashboardUrl: `${baseUrl}/_emulator/ui/`,
    }) + "\n",
  );
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`cloudplatform-emulator: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
