// A stack's outputs and its last update, read from a file backend's own files: what
// `pulumi stack output --json [--show-secrets]` and `pulumi stack history --page-size 1` print.
// The Automation API runs those three commands after every up (and history after every refresh
// and destroy): about 1.6 s of the CLI's CPU each time, starting and deriving the passphrase's key.
// Anything these files hold that this reader does not know gives `undefined`: ask the CLI then.
import { createDecipheriv, pbkdf2Sync } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { OutputMap, UpdateSummary } from "@pulumi/pulumi/automation";

// Pulumi's serialized property values: a signature key, and the signature of a secret.
const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";

class Unreadable extends Error {}

/** A checkpoint's `secrets_providers`: the passphrase provider keeps its salt here. */
type SecretsProviders = { type?: string; state?: { salt?: string } } | undefined;

export class DiyState {
  /** Derived keys by salt: 1,000,000 rounds of PBKDF2, as the CLI does, once per stack. */
  private readonly keys = new Map<string, Buffer>();

  /** A project's stacks in the file backend at `backendDir`, their secrets under `passphrase`. */
  constructor(private readonly backendDir: string, private readonly project: string, private readonly passphrase: string) {}

  /** The stack's outputs, each with whether it is a secret, or undefined if unreadable here. */
  outputs(stack: string): OutputMap | undefined {
    return readable(() => {
      const latest = this.checkpoint(stack);
      const root = (latest?.resources ?? []).find((r: { type: string; delete?: boolean }) => r.type === "pulumi:pulumi:Stack" && !r.delete);
      const out: OutputMap = {};
      for (const [k, v] of Object.entries<unknown>(root?.outputs ?? {})) {
        out[k] = { value: this.plain(v, latest.secrets_providers), secret: isSecret(v) };
      }
      return out;
    });
  }

  /** The newest update's summary, or undefined when there is none (or none readable here). */
  lastUpdate(stack: string): UpdateSummary | undefined {
    return readable(() => {
      const dir = join(this.backendDir, ".pulumi", "history", this.project, stack);
      if (!existsSync(dir)) throw new Unreadable();
      const stamp = (f: string) => f.slice(stack.length + 1, -".history.json".length);
      const files = readdirSync(dir).filter((f) => f.endsWith(".history.json") && /^\d+$/.test(stamp(f)));
      if (files.length === 0) throw new Unreadable();
      const newest = files.reduce((a, b) => (BigInt(stamp(b)) > BigInt(stamp(a)) ? b : a));
      const info = JSON.parse(readFileSync(join(dir, newest), "utf8"));
      let providers: SecretsProviders;
      const config = Object.entries<unknown>(info.config ?? {}).map(([k, v]) => {
        if (typeof v === "string") return [k, { value: v, secret: false }];
        const secure = (v as { secure?: unknown } | null)?.secure;
        if (typeof secure !== "string") throw new Unreadable();
        providers ??= this.checkpoint(stack)?.secrets_providers;
        return [k, { value: this.decrypt(secure, providers), secret: true }];
      });
      return {
        ...info,
        startTime: new Date(info.startTime * 1000),
        endTime: info.endTime === undefined ? undefined : new Date(info.endTime * 1000),
        config: Object.fromEntries(config),
      };
    });
  }

  private checkpoint(stack: string): any {
    const file = join(this.backendDir, ".pulumi", "stacks", this.project, `${stack}.json`);
    if (!existsSync(file)) throw new Unreadable();
    return JSON.parse(readFileSync(file, "utf8"))?.checkpoint?.latest;
  }

  private plain(v: unknown, providers: SecretsProviders): unknown {
    if (Array.isArray(v)) return v.map((x) => this.plain(x, providers));
    if (v === null || typeof v !== "object") return v;
    const o = v as Record<string, unknown>;
    if (!(SIG in o)) return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, this.plain(x, providers)]));
    // Assets, archives and resource references print differently: the CLI knows how.
    if (o[SIG] !== SECRET) throw new Unreadable();
    if (typeof o.plaintext === "string") return this.plain(JSON.parse(o.plaintext), providers);
    if (typeof o.ciphertext !== "string") throw new Unreadable();
    return this.plain(JSON.parse(this.decrypt(o.ciphertext, providers)), providers);
  }

  private decrypt(ciphertext: string, providers: SecretsProviders): string {
    // The salt's state: v1:<salt>:<"pulumi" sealed with the key>; a value: v1:<nonce>:<AES-256-GCM sealed>.
    const state = providers?.type === "passphrase" ? providers.state?.salt : undefined;
    const [version, salt, ...check] = state?.split(":") ?? [];
    if (version !== "v1" || !salt) throw new Unreadable();
    let key = this.keys.get(salt);
    if (!key) {
      key = pbkdf2Sync(this.passphrase, Buffer.from(salt, "base64"), 1_000_000, 32, "sha256");
      if (open(key, check.join(":")) !== "pulumi") throw new Unreadable();
      this.keys.set(salt, key);
    }
    return open(key, ciphertext);
  }
}

function readable<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    if (err instanceof Unreadable) return undefined;
    throw err;
  }
}

function isSecret(v: unknown): boolean {
  return v !== null && typeof v === "object" && (v as Record<string, unknown>)[SIG] === SECRET;
}

function open(key: Buffer, value: string): string {
  const [version, nonce, sealed] = value.split(":");
  if (version !== "v1" || !nonce || !sealed) throw new Unreadable();
  const data = Buffer.from(sealed, "base64");
  const d = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64"));
  d.setAuthTag(data.subarray(data.length - 16));
  try {
    return Buffer.concat([d.update(data.subarray(0, data.length - 16)), d.final()]).toString("utf8");
  } catch {
    throw new Unreadable();
  }
}
