// Waiting for a deploy to go live, and explaining why one did not: the error carries the
// platform's errorCode, its error text and the last log lines, with known secret values redacted.
import { deployApi } from "../api/endpoints/services";
import type { V1Deploy } from "../api/services";
import { NotFoundError, PermissionDeniedError } from "../client";
import type { Context } from "./framework";
import { formatDuration, pollUntil, type WaitBudget } from "./waiter";

const ENDED = ["RUNNING", "FAILED", "CANCELLED", "SUPERSEDED", "REPLACED"];

/** A deploy status that may still change: the deploy has not ended. */
export const deployUnderWay = (status: string | null | undefined): boolean => !!status && !ENDED.includes(status);
const POLL = { initialMs: 250, maxMs: 5_000, factor: 1.6 };
const LOG_LINES = 12;

/** A deploy that ended without going live. */
export class DeployFailedError extends Error {
  constructor(
    message: string,
    readonly deployId: string,
    readonly errorCode: string | null,
  ) {
    super(message);
    this.name = "DeployFailedError";
  }
}

export async function latestDeploy(ctx: Context, serviceId: string): Promise<V1Deploy | undefined> {
  return deployApi.latest(ctx.client, serviceId);
}

/** The newest deploy, or undefined when the key cannot read deploys (no DEPLOYS area). */
export async function latestDeployIfAllowed(ctx: Context, serviceId: string): Promise<V1Deploy | undefined> {
  try {
    return await latestDeploy(ctx, serviceId);
  } catch (err) {
    if (err instanceof PermissionDeniedError || err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/**
 * Polls the deploy until it is live. A deploy superseded by a newer one hands over to that one.
 * Throws DeployFailedError when it fails, is cancelled, or the timeout passes.
 */
export async function waitForDeploy(
  ctx: Context,
  serviceName: string,
  deployId: string,
  opts: { timeoutMs: number; limit?: WaitBudget["limit"]; secrets?: string[] },
): Promise<V1Deploy> {
  const started = Date.now();
  let current = deployId;
  let lastSeen = "";
  for (;;) {
    const left = opts.timeoutMs - (Date.now() - started);
    const { value: d, timedOut } = await pollUntil<V1Deploy>(
      async () => {
        const d = await readDeploy(ctx, current);
        if (ENDED.includes(d.status)) return { done: true, value: d };
        // Say each phase once, not every poll.
        const progress = d.status !== lastSeen ? `${serviceName}: deploy ${d.id} is ${d.status}` : undefined;
        lastSeen = d.status;
        return { done: false, value: d, progress };
      },
      { timeoutMs: Math.max(left, 0), policy: POLL, log: (m) => ctx.log(m) },
    );
    if (timedOut) {
      throw new DeployFailedError(
        `${serviceName}: deploy ${d.id} was still ${d.status} after ${formatDuration(opts.timeoutMs)}${opts.limit === "customTimeouts" ? " (customTimeouts)" : ""}; raise ${opts.limit ?? "`timeout`"}, or set waitForDeploy: false to not wait`,
        d.id, null,
      );
    }
    if (d.status === "RUNNING" || d.status === "REPLACED") {
      // Also said when the first poll already finds it live, so every wait leaves a line.
      ctx.log(`${serviceName}: deploy ${d.id} is live after ${formatDuration(Date.now() - started)}`);
      return d;
    }
    if (d.status === "SUPERSEDED") {
      const newer = await latestDeploy(ctx, d.serviceId);
      if (newer && newer.id !== d.id) {
        ctx.log(`${serviceName}: deploy ${d.id} was superseded by ${newer.id}; waiting for that one`);
        current = newer.id;
        continue;
      }
    }
    const lines = await lastLogLines(ctx, d.id, opts.secrets ?? []);
    const why = d.status === "FAILED"
      ? `failed${d.errorCode ? ` with ${d.errorCode}` : ""}${d.error ? `: ${d.error}` : ""}`
      : `ended ${d.status} without going live`;
    const tail = lines.length ? `\nlast log lines:\n${lines.map((l) => `  ${l}`).join("\n")}` : "";
    throw new DeployFailedError(redact(`${serviceName}: deploy ${d.id} ${why}${tail}`, opts.secrets ?? []), d.id, d.errorCode ?? null);
  }
}

async function readDeploy(ctx: Context, id: string): Promise<V1Deploy> {
  try {
    return await deployApi.get(ctx.client, id);
  } catch (err) {
    throw waitNeedsDeploys(err, `deploy ${id}`);
  }
}

/** A key without DEPLOYS cannot wait for a deploy: the error says which key, or not to wait. */
export function waitNeedsDeploys(err: unknown, what: string): unknown {
  if (!(err instanceof PermissionDeniedError)) return err;
  return new Error(`Waiting for ${what} needs a key with READ + DEPLOYS (${err.messageList.join("; ")}); use such a key, or set waitForDeploy: false`);
}

async function lastLogLines(ctx: Context, deployId: string, secrets: string[]): Promise<string[]> {
  try {
    const all = await deployApi.logs(ctx.client, deployId);
    return all.slice(-LOG_LINES).map((l) => redact(l.line, secrets));
  } catch {
    // The logs explain the failure; without them the errorCode and error still do.
    return [];
  }
}

/** Replaces every known secret value in text; short values are left alone to keep text readable. */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join("[secret]");
  return out;
}
