#!/usr/bin/env node
// cloudplatform-emulator [--port N] [--state FILE] [--dns-propagation-ms N] [--speed X] [--delegate DOMAIN]... [--rate-limit N/min]
// Prints one JSON line with the base URL and keys, then serves until SIGINT or SIGTERM.
import { parseArgs } from "node:util";
import { startEmulator } from "./index";
import { parseRateLimit } from "./rate-limit";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string" },
      host: { type: "string" },
      state: { type: "string" },
      "dns-propagation-ms": { type: "string" },
      speed: { type: "string" },
      delegate: { type: "string", multiple: true },
      "dns-port": { type: "string" },
      log: { type: "boolean" },
      "rate-limit": { type: "string" },
      "rate-burst": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stderr.write(
      "usage: cloudplatform-emulator [--port N] [--host 127.0.0.1] [--state FILE] [--dns-propagation-ms N] [--speed X] [--delegate DOMAIN]... [--dns-port N] [--rate-limit N/min [--rate-burst N]] [--log]\n" +
        "  --rate-limit N/min  answer 429 with Retry-After once an API key exceeds N requests per minute (token bucket; also N/s)\n" +
        "  --rate-burst N      requests a key may make at once before the limit applies (default: one second's worth)\n",
    );
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
    rateLimit: values["rate-limit"] === undefined ? undefined : {
      perMinute: parseRateLimit(values["rate-limit"]),
      burst: num(values["rate-burst"], "rate-burst"),
    },
    settings: {
      ...(values["dns-propagation-ms"] !== undefined ? { dnsPropagationMs: num(values["dns-propagation-ms"], "dns-propagation-ms") } : {}),
      ...(values.speed !== undefined ? { speed: num(values.speed, "speed") } : {}),
      delegations: values.delegate ?? [],
    },
  });
  const { baseUrl, dnsAddress, workspaceId, otherWorkspaceId, apiKey, keys } = emulator;
  process.stdout.write(JSON.stringify({ baseUrl, ...(dnsAddress ? { dnsAddress } : {}), workspaceId, otherWorkspaceId, apiKey, keys }) + "\n");
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
