// The steps of a Service update, in the order update() runs them: env vars and secret files
// (serviceConfig.ts), cron settings, one PATCH of name, build and source, the deploy that applies
// it, then the suspension and preview switches.
import { deployApi, type ServicePatchBody, serviceApi } from "../api/endpoints/services";
import type { V1Deploy } from "../api/services";
import { compact, type Context, same } from "./framework";
import { DeployFailedError, deployUnderWay, latestDeploy, latestDeployIfAllowed, waitForDeploy } from "./deploy-wait";
import { findService } from "./serviceOutputs";
import type { WaitBudget } from "./waiter";
import { BUILD_KEYS, type ServiceInputs, type ServiceOutputs, SOURCE_KEYS } from "./serviceSchema";

/** Cron settings apply from the next scheduled run. */
export async function applyCron(ctx: Context, id: string, olds: ServiceOutputs, news: ServiceInputs): Promise<void> {
  const cron = compact({
    schedule: news.schedule !== undefined && news.schedule !== olds.schedule ? news.schedule : undefined,
    command: news.command !== undefined && news.command !== olds.command ? news.command : undefined,
  });
  if (Object.keys(cron).length) await serviceApi.patchCron(ctx.client, id, cron);
}

export interface SettingsChange {
  /** A build setting changed: the next deploy applies it. */
  buildChanged: boolean;
  /** The PATCH deployed a new source at once. */
  redeployed: boolean;
  /** Source keys an earlier update already sent (it gave up waiting): their deploy is waited for, not started again. */
  appliedEarlier: string[];
  /** The newest deploy before the PATCH, to tell the deploy it started from older ones. */
  before?: V1Deploy;
}

/** Name, build and source in one PATCH. A source change deploys at once, unless the service stays suspended. */
export async function applySettings(ctx: Context, id: string, olds: ServiceOutputs, news: ServiceInputs, suspendedAfter: boolean): Promise<SettingsChange> {
  const body: ServicePatchBody = {};
  if (news.name !== olds.name) body.name = news.name;
  const build = changedKeys(BUILD_KEYS, olds, news);
  if (Object.keys(build).length) body.build = build;
  const source = changedKeys(SOURCE_KEYS, olds, news);
  const applied = Object.keys(source).length ? await appliedEarlier(ctx, id, source) : [];
  for (const k of applied) delete source[k];
  const redeployed = Object.keys(source).length > 0 && !suspendedAfter;
  if (Object.keys(source).length) body.source = { ...source, redeploy: !suspendedAfter };
  const before = redeployed ? await latestDeployIfAllowed(ctx, id) : undefined;
  if (Object.keys(body).length) await serviceApi.patch(ctx.client, id, body);
  return { buildChanged: body.build !== undefined, redeployed, appliedEarlier: applied, before };
}

/**
 * The deploy this update starts when the PATCH started none: the source an earlier update sent
 * is deployed again when its deploy failed or was cancelled (and waited for either way), and a
 * change that needs a deploy gets one when the program asks for it (redeployOnChange).
 */
export async function redeployIfNeeded(
  ctx: Context, id: string, news: ServiceInputs, change: SettingsChange, needsRedeploy: boolean, suspendedAfter: boolean,
): Promise<boolean> {
  if (change.redeployed) return true;
  if (change.appliedEarlier.length && !suspendedAfter && news.waitForDeploy !== false) {
    const last = await latestDeployIfAllowed(ctx, id);
    if (last && ["FAILED", "CANCELLED"].includes(last.status)) await deployApi.start(ctx.client, id);
    if (last) return true;
  }
  if (needsRedeploy && news.redeployOnChange && !suspendedAfter) {
    await deployApi.start(ctx.client, id);
    return true;
  }
  return false;
}

/** Waits for the deploy the update started; a failure keeps the previous state, so the next `up` applies the change again. */
export async function waitForRedeploy(ctx: Context, id: string, news: ServiceInputs, before: V1Deploy | undefined, wait: WaitBudget, secrets: string[]): Promise<void> {
  const d = await latestDeploy(ctx, id);
  if (d && d.id !== before?.id) await waitLive(ctx, news, d.id, wait, secrets);
}

/**
 * A deploy an earlier wait left under way (its timeout passed: "raise `timeout`"): the next update
 * waits for it, so following the advice finishes the job, whether or not the deploy ended meanwhile.
 */
export async function continueWait(ctx: Context, id: string, news: ServiceInputs, wait: WaitBudget, secrets: string[]): Promise<void> {
  const d = await latestDeployIfAllowed(ctx, id);
  if (d && deployUnderWay(d.status)) await waitLive(ctx, news, d.id, wait, secrets);
}

/** An update's wait: a failed deploy is a plain error (the update keeps the previous state), not a created-but-broken one. */
async function waitLive(ctx: Context, news: ServiceInputs, deployId: string, wait: WaitBudget, secrets: string[]): Promise<void> {
  try {
    await waitForDeploy(ctx, news.name, deployId, { timeoutMs: wait.ms, limit: wait.limit, secrets });
  } catch (err) {
    if (err instanceof DeployFailedError) throw new Error(err.message);
    throw err;
  }
}

/** Suspension, cron suspension and previews, switched after any deploy. */
export async function applySwitches(ctx: Context, id: string, olds: ServiceOutputs, news: ServiceInputs): Promise<void> {
  if (news.type === "CRON" && news.cronSuspended !== undefined && news.cronSuspended !== (olds.cronSuspended ?? false)) {
    await serviceApi.setCronSuspended(ctx.client, id, news.cronSuspended);
  }
  if (news.suspended && !olds.suspended) await serviceApi.suspend(ctx.client, id);
  if (news.previewsEnabled !== undefined && news.previewsEnabled !== olds.previewsEnabled) await serviceApi.setPreviewsEnabled(ctx.client, id, news.previewsEnabled);
}

/** The source keys whose new value the live service already has. */
async function appliedEarlier(ctx: Context, id: string, source: Record<string, unknown>): Promise<string[]> {
  const svc = await findService(ctx, id);
  if (!svc) return [];
  const live: Record<string, unknown> = { ...svc.source, sourceType: svc.source.type };
  return Object.keys(source).filter((k) => k !== "installationId" && live[k] !== undefined && same(live[k], source[k]));
}

function changedKeys(keys: readonly string[], olds: Record<string, unknown>, news: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (news[k] !== undefined && !same(olds[k], news[k])) out[k] = news[k];
  return out;
}
