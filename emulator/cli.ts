#!/usr/bin/env node
// cloudplatform-emulator [--port N] [--state FILE] [--dns-propagation-ms N] [--speed X] [--delegate DOMAIN]... [--send-rate N]
// Prints one JSON line with the base URL and keys, then serves until SIGINT or SIGTERM.
// cloudplatform-emulator outbox --base-url URL [--to ADDRESS] [--since DATE] [--clear]: prints (or empties) the mail outbox.
import { parseArgs } from "node:util";
import { startEmulator } from "./index";

const USAGE =
  "usage: cloudplatform-emulator [--port N] [--host 127.0.0.1] [--state FILE] [--dns-propagation-ms N] [--speed X] [--delegate DOMAIN]... [--dns-port N] [--send-rate N] [--log]\n" +
  "       cloudplatform-emulator outbox --base-url URL [--to ADDRESS] [--since DATE] [--clear]\n\n" +
  "  --port N                 HTTP port on 127.0.0.1 (0 or absent: any free port)\n" +
  "  --host H                 address to listen on (default 127.0.0.1)\n" +
  "  --state FILE             keep all state, keys included, in FILE across restarts\n" +
  "  --dns-propagation-ms N   delay before a new public DNS record is visible (default 0)\n" +
  "  --speed X                pace of simulated lifecycles and mail delivery: 1 realistic, 0 instant\n" +
  "  --delegate DOMAIN        treat DOMAIN's public nameservers as pointing at the platform (repeatable)\n" +
  "  --dns-port N             also serve the simulated public DNS over UDP on port N\n" +
  "  --send-rate N            email send requests per minute per key (default 3000)\n" +
  "  --log                    log every request to stderr\n\n" +
  "  outbox                   print the messages the emulator accepted (sandbox or not) as JSON, oldest first\n" +
  "    --base-url URL         the running emulator (its startup line's baseUrl)\n" +
  "    --to ADDRESS           only messages to (or cc/bcc) this address\n" +
  "    --since DATE           only messages since YYYY-MM-DD or an ISO date-time\n" +
  "    --clear                empty the outbox instead of printing it\n";

/** `outbox`: reads or clears GET/DELETE /_emulator/mail/outbox of a running emulator. */
async function outboxCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { "base-url": { type: "string" }, to: { type: "string" }, since: { type: "string" }, clear: { type: "boolean" } },
  });
  const base = values["base-url"] ?? process.env.CLOUDPLATFORM_BASE_URL;
  if (!base) throw new Error("outbox: give --base-url URL (the emulator's baseUrl)");
  const query = new URLSearchParams();
  if (values.to) query.set("to", values.to);
  if (values.since) query.set("since", values.since);
  const url = `${base.replace(/\/+$/, "")}/_emulator/mail/outbox${values.clear ? "" : `?${query}`}`;
  const res = await fetch(url, { method: values.clear ? "DELETE" : "GET" });
  if (!res.ok) throw new Error(`outbox: ${res.status} ${await res.text()}`);
  if (!values.clear) process.stdout.write(JSON.stringify(await res.json(), null, 2) + "\n");
}

async function main(): Promise<void> {
  if (process.argv[2] === "outbox") return outboxCommand(process.argv.slice(3));
  const { values } = parseArgs({
    options: {
      port: { type: "string" },
      host: { type: "string" },
      state: { type: "string" },
      "dns-propagation-ms": { type: "string" },
      speed: { type: "string" },
      delegate: { type: "string", multiple: true },
      "dns-port": { type: "string" },
      "send-rate": { type: "string" },
      log: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stderr.write(USAGE);
    return;
  }
  const num = (v: string | undefined, name: string): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number, got '${v}'`);
    return n;
  };
  const emulator = await startEmulator({
    port: num(values.port, "port"),
    host: values.host,
    stateFile: values.state,
    dnsPort: num(values["dns-port"], "dns-port"),
    logger: values.log,
    settings: {
      ...(values["dns-propagation-ms"] !== undefined ? { dnsPropagationMs: num(values["dns-propagation-ms"], "dns-propagation-ms") } : {}),
      ...(values.speed !== undefined ? { speed: num(values.speed, "speed") } : {}),
      delegations: values.delegate ?? [],
      ...(values["send-rate"] !== undefined ? { sendRatePerMinute: num(values["send-rate"], "send-rate") } : {}),
    },
  });
  const { baseUrl, dnsAddress, workspaceId, otherWorkspaceId, apiKey, keys, storageKeys, testMailDomain } = emulator;
  process.stdout.write(JSON.stringify({ baseUrl, ...(dnsAddress ? { dnsAddress } : {}), workspaceId, otherWorkspaceId, apiKey, keys, storageKeys, testMailDomain }) + "\n");
  const stop = async () => {
    await emulator.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err) => {
  process.stderr.write(`cloudplatform-emulator: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
