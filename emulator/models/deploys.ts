// Deploys (infrastructure routes §2.4, §3, §4.4). A deploy's phase is derived from its creation
// time, the clock and settings.speed; its outcome is decided when it is queued, from documented
// trigger inputs (docs/api-assumptions.md), and explained in its log lines.
import { createHash } from "node:crypto";
import type { Principal } from "../auth";
import type { Emu } from "../emu";
import { conflict, notFound } from "../errors";
import { newId } from "../store";
import {
  buildEndMs, type Deploy, type DeployTrigger, deploys, deploysByService, deploysOf, deployStatus, effectiveEnv, type Failure, failedAtMs, getService,
  isDatabase, lineId, runEndMs, type Service, secretFilesOf, serviceUrl, speedMs,
} from "./lifecycle";

export { deploysOf, deployStatus, liveAtMs } from "./lifecycle";
export type { Deploy, DeployTrigger } from "./lifecycle";

const DURATION = { queue: 2_000, buildImage: 5_000, buildGit: 15_000, buildReuse: 2_000, run: 5_000, runDatabase: 8_000 };
const DB_IMAGES: Record<string, string> = {
  POSTGRES: "postgres:16", MYSQL: "mysql:8.4", MARIADB: "mariadb:11", MONGODB: "mongo:7", REDIS: "redis:7", VALKEY: "valkey/valkey:8",
};

export function deleteDeploysOf(emu: Emu, serviceId: string): void {
  for (const d of deploysByService(emu).list(serviceId)) deploys(emu).delete(d.id);
}

export function getDeploy(emu: Emu, who: Principal, id: string): { deploy: Deploy; svc: Service } {
  const deploy = deploys(emu).get(id);
  if (!deploy) throw notFound("Deploy", id);
  return { deploy, svc: getService(emu, who, deploy.serviceId, "Deploy") };
}

/** The failure a deploy of this configuration meets, from the documented trigger inputs. */
function decideFailure(svc: Service, artifact: string): Failure | null {
  if (isDatabase(svc.type)) return null;
  const image = svc.source.type === "CONTAINER_IMAGE" ? svc.source.image ?? "" : "";
  if (image && (/does-not-exist/i.test(image) || /:missing$/i.test(image))) {
    return {
      phase: "BUILD", code: "IMAGE_REJECTED",
      error: `The image ${image} could not be pulled: the registry answered "manifest unknown" (it does not exist, or it is private)`,
      lines: [`Error response from registry: manifest for ${image} not found: manifest unknown`],
    };
  }
  const build = svc.build.buildCommand ?? "";
  const buildExit = /\bexit\s+([1-9]\d*)/.exec(build);
  if (buildExit && svc.source.type !== "CONTAINER_IMAGE") {
    return {
      phase: "BUILD", code: "BUILD_FAILED",
      error: `The build command exited with code ${buildExit[1]}`,
      lines: [`$ ${build}`, `build command exited with code ${buildExit[1]}`],
    };
  }
  if (svc.type !== "WEB") return null;
  const start = (svc.source.type === "CONTAINER_IMAGE" ? svc.source.imageCommand : null) ?? svc.build.startCommand ?? "";
  const startExit = /\bexit\s+(\d+)/.exec(start);
  if (startExit) {
    return {
      phase: "RUN", code: "CRASH",
      error: `The start command exited with code ${startExit[1]} before the service became healthy`,
      lines: [`$ ${start}`, `process exited with code ${startExit[1]}`, "restarting (attempt 2 of 3)", `process exited with code ${startExit[1]}`],
    };
  }
  if (svc.port === 1) {
    return {
      phase: "RUN", code: "PORT_NOT_LISTENING",
      error: `Nothing listened on port ${svc.port}; make the app listen on $PORT or set port to the one it uses`,
      lines: [`${artifact} started, but no process is listening on 0.0.0.0:${svc.port}`],
    };
  }
  if (svc.healthCheckPath && /unhealthy/i.test(svc.healthCheckPath)) {
    return {
      phase: "RUN", code: "HEALTH_TIMEOUT",
      error: `The health check GET ${svc.healthCheckPath} did not answer 2xx in time`,
      lines: [`GET ${svc.healthCheckPath} -> 503 Service Unavailable`, `GET ${svc.healthCheckPath} -> 503 Service Unavailable`],
    };
  }
  return null;
}

const sha = (seed: string) => createHash("sha1").update(seed).digest("hex");

/** Queues a deploy of the service as it is configured now; older deploys still queued are superseded. */
export function queueDeploy(emu: Emu, svc: Service, trigger: DeployTrigger, target?: Deploy): Deploy {
  const now = emu.clock.now();
  const all = deploysOf(emu, svc.id);
  for (const older of all) {
    if (deployStatus(emu, older) === "QUEUED") deploys(emu).update(older.id, { supersededAtMs: now });
  }
  const seq = (all[0]?.seq ?? 0) + 1;
  const id = newId();
  const db = isDatabase(svc.type);
  const git = svc.source.type === "PUBLIC_GIT" || svc.source.type === "REPO_APP";
  const sourceKind = db ? "DATABASE" : svc.source.type === "CONTAINER_IMAGE" ? "IMAGE" : git ? "GIT" : "UPLOAD";
  const artifact = db ? DB_IMAGES[svc.type] : svc.source.image ?? svc.source.repoFullName ?? svc.source.gitUrl ?? "static upload";
  const common = {
    id, serviceId: svc.id, seq, trigger, serviceType: svc.type, createdAtMs: now,
    queueMs: speedMs(emu, DURATION.queue), cancelledAtMs: null, supersededAtMs: null,
    envKeys: effectiveEnv(emu, svc).map((r) => r.key), filePaths: secretFilesOf(emu, svc.id).map((f) => f.path),
  };
  if (target) {
    // A rollback replays the stored image of a deploy that went live: no rebuild, no new outcome.
    return deploys(emu).insert({
      ...target, ...common, buildMs: speedMs(emu, DURATION.buildReuse), runMs: speedMs(emu, DURATION.run), fail: null,
      rollbackOf: target.id, commitMessage: `Rollback to deploy ${target.id}`,
    });
  }
  const buildMs = speedMs(emu, db || sourceKind === "IMAGE" ? DURATION.buildImage : DURATION.buildGit);
  return deploys(emu).insert({
    ...common,
    branch: git ? svc.source.branch : null,
    commitSha: git ? sha(`${svc.id}:${svc.source.branch}:${svc.source.gitUrl ?? svc.source.repoFullName}`) : null,
    commitMessage: git ? `Latest commit on ${svc.source.branch}` : null,
    authorName: git ? "Ada Lovelace" : null,
    buildCommand: svc.build.buildCommand,
    startCommand: svc.type === "CRON" ? (svc.cron?.command ?? svc.build.startCommand) : (svc.source.imageCommand ?? svc.build.startCommand),
    artifact,
    sourceKind,
    port: svc.port,
    healthCheckPath: svc.healthCheckPath,
    buildMs,
    runMs: speedMs(emu, db ? DURATION.runDatabase : DURATION.run),
    fail: decideFailure(svc, artifact),
    rollbackOf: null,
  });
}

export function deployView(emu: Emu, d: Deploy) {
  const status = deployStatus(emu, d);
  const startMs = d.createdAtMs + d.queueMs;
  const endMs = status === "CANCELLED" ? d.cancelledAtMs
    : status === "SUPERSEDED" ? d.supersededAtMs
      : status === "FAILED" ? failedAtMs(d)
        : status === "RUNNING" || status === "REPLACED" ? runEndMs(d) : null;
  const started = emu.clock.now() >= startMs && status !== "SUPERSEDED" && !(status === "CANCELLED" && d.cancelledAtMs! < startMs);
  return {
    id: d.id,
    serviceId: d.serviceId,
    status,
    trigger: d.trigger,
    branch: d.branch,
    commitSha: d.commitSha,
    commitMessage: d.commitMessage,
    authorName: d.authorName,
    buildCommand: d.buildCommand,
    startCommand: d.startCommand,
    error: status === "FAILED" ? d.fail!.error : null,
    errorCode: status === "FAILED" ? d.fail!.code : null,
    durationMs: started && endMs !== null ? Math.max(0, endMs - startMs) : null,
    createdAt: new Date(d.createdAtMs).toISOString(),
    startedAt: started ? new Date(startMs).toISOString() : null,
    finishedAt: endMs !== null ? new Date(endMs).toISOString() : null,
  };
}

/** The deploy as the route that queued it answers (202): QUEUED, not started, whatever the speed. */
export function acceptedDeployView(emu: Emu, d: Deploy) {
  return { ...deployView(emu, d), status: "QUEUED", error: null, errorCode: null, durationMs: null, startedAt: null, finishedAt: null };
}

type Line = { at: number; line: string; stream: "STDOUT" | "STDERR" | "SYSTEM"; level: "INFO" | "WARN" | "ERROR" };

function allLines(emu: Emu, d: Deploy, svc: Service | undefined): Line[] {
  const q = d.createdAtMs + d.queueMs;
  const b = buildEndMs(d);
  const r = runEndMs(d);
  const L = (at: number, line: string, stream: Line["stream"] = "SYSTEM", level: Line["level"] = "INFO"): Line => ({ at, line, stream, level });
  const out: Line[] = [L(d.createdAtMs, `Deploy queued (trigger ${d.trigger})`)];
  out.push(L(q, "Build started"));
  if (d.rollbackOf) out.push(L(q, `Reusing the image built for deploy ${d.rollbackOf}; no rebuild`));
  else if (d.sourceKind === "IMAGE" || d.sourceKind === "DATABASE") out.push(L(q, `Pulling image ${d.artifact}`, "STDOUT"));
  else if (d.sourceKind === "GIT") {
    out.push(L(q, `Cloning ${d.artifact} (branch ${d.branch ?? "main"}, commit ${d.commitSha?.slice(0, 7)})`, "STDOUT"));
    if (d.buildCommand) out.push(L(q, `Running build command: ${d.buildCommand}`, "STDOUT"));
  }
  out.push(L(q, d.envKeys.length ? `Environment: ${d.envKeys.length} variable${d.envKeys.length === 1 ? "" : "s"} (${d.envKeys.join(", ")})` : "Environment: no variables"));
  if (d.filePaths.length) out.push(L(q, `Secret files mounted: ${d.filePaths.join(", ")}`));
  if (d.fail?.phase === "BUILD") {
    for (const l of d.fail.lines) out.push(L(b, l, "STDERR", "ERROR"));
    out.push(L(b, `Deploy failed: ${d.fail.code}: ${d.fail.error}`, "SYSTEM", "ERROR"));
    return out;
  }
  out.push(L(b, `Build finished in ${((d.buildMs) / 1000).toFixed(1)}s`));
  if (d.serviceType === "CRON") {
    out.push(L(r, "Image ready: scheduled runs use it from now on"));
  } else if (d.sourceKind === "DATABASE") {
    out.push(L(b, `Starting ${d.artifact} with a persistent volume`, "STDOUT"));
    out.push(L(r, "database system is ready to accept connections", "STDOUT"));
  } else {
    out.push(L(b, d.startCommand ? `Starting: ${d.startCommand}` : "Starting the image's default command", "STDOUT"));
    if (d.fail) {
      for (const l of d.fail.lines) out.push(L(r, l, "STDERR", "ERROR"));
      out.push(L(r, `Deploy failed: ${d.fail.code}: ${d.fail.error}`, "SYSTEM", "ERROR"));
      return out;
    }
    if (d.port) out.push(L(r, `Listening on port ${d.port}`, "STDOUT"));
    if (d.healthCheckPath) out.push(L(r, `Health check GET ${d.healthCheckPath} -> 200 OK`));
  }
  const url = svc ? serviceUrl(emu, svc) : null;
  out.push(L(r, url ? `Deploy live at ${url}` : "Deploy live"));
  return out;
}

/** Oldest first; readable once the build has finished (or the deploy ended before that). */
export function deployLogs(emu: Emu, d: Deploy, svc: Service) {
  const status = deployStatus(emu, d);
  const now = emu.clock.now();
  if (!["CANCELLED", "SUPERSEDED", "FAILED"].includes(status) && now < buildEndMs(d)) {
    throw conflict(`Logs of deploy ${d.id} are readable once the build has finished; it is ${status}`);
  }
  let lines = allLines(emu, d, svc);
  const stop = d.cancelledAtMs ?? d.supersededAtMs;
  if (stop !== null && stop <= now) {
    lines = lines.filter((l) => l.at <= stop);
    lines.push({ at: stop, line: d.cancelledAtMs !== null ? "Deploy cancelled; the version already live keeps serving" : "Deploy superseded by a newer one before it started", stream: "SYSTEM", level: "WARN" });
  }
  return lines
    .filter((l) => l.at <= now)
    .map((l, i) => ({ id: lineId(d.id, i), line: l.line, stream: l.stream, level: l.level, createdAt: new Date(l.at).toISOString() }));
}

export function cancelDeploy(emu: Emu, d: Deploy): Deploy {
  const status = deployStatus(emu, d);
  if (!["QUEUED", "BUILDING", "TESTING", "DEPLOYING"].includes(status)) {
    throw conflict(`Deploy ${d.id} is ${status}; only a deploy that has not gone live (QUEUED, BUILDING or DEPLOYING) can be cancelled`);
  }
  return deploys(emu).update(d.id, { cancelledAtMs: emu.clock.now() });
}

export function rollbackTo(emu: Emu, target: Deploy, svc: Service): Deploy {
  const status = deployStatus(emu, target);
  if (status !== "RUNNING" && status !== "REPLACED") {
    throw conflict(`Deploy ${target.id} is ${status}; only a deploy that went live (RUNNING or REPLACED) can be rolled back to`);
  }
  if (svc.suspension !== "NONE") throw conflict(`Service ${svc.id} is suspended; resume it before rolling back`);
  return queueDeploy(emu, svc, "ROLLBACK", target);
}
