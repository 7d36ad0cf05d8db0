// Cron jobs (infrastructure routes §2.4, §4.5): five-field UTC schedules, settings, and runs.
// Scheduled runs are materialised lazily on read from the schedule and the clock, so tests move
// time instead of waiting.
import { z } from "zod";
import type { Emu } from "../emu";
import { badRequest, conflict, notFound } from "../errors";
import { newId } from "../store";
import type { Principal } from "../auth";
import { deployStatus, deploysOf, getService, lineId, liveAtMs, type Service, services, speedMs } from "./lifecycle";

// ---- schedules ----
interface Field {
  name: string;
  min: number;
  max: number;
  names?: string[];
}
const FIELDS: Field[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"] },
  { name: "day of week", min: 0, max: 7, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] },
];

export interface Schedule {
  sets: Set<number>[];
  domAny: boolean;
  dowAny: boolean;
}

/** Parses a five-field cron expression (UTC); throws a message naming the field and the rule. */
export function parseSchedule(expr: string): Schedule {
  const parts = expr.trim().split(/\s+/);
  if (expr.trim().startsWith("@")) {
    throw new Error(`'${expr}' is a macro; write the five fields instead (e.g. '0 * * * *' for hourly)`);
  }
  if (parts.length !== 5) {
    throw new Error(`'${expr}' has ${parts.length} field${parts.length === 1 ? "" : "s"}; a schedule has five: minute hour day-of-month month day-of-week (UTC)`);
  }
  const sets = parts.map((part, i) => parseField(part, FIELDS[i]));
  // Sunday is 0 or 7.
  if (sets[4].has(7)) sets[4].add(0);
  return { sets, domAny: parts[2] === "*" || parts[2] === "?", dowAny: parts[4] === "*" || parts[4] === "?" };
}

function parseField(part: string, f: Field): Set<number> {
  const out = new Set<number>();
  const value = (s: string): number => {
    const named = f.names?.indexOf(s.toUpperCase()) ?? -1;
    if (named >= 0) return f.name === "month" ? named + 1 : named;
    if (!/^\d+$/.test(s)) throw new Error(`${f.name} field: '${s}' is not a number${f.names ? " or a name such as " + f.names[0] : ""}`);
    const n = Number(s);
    if (n < f.min || n > f.max) throw new Error(`${f.name} field: ${n} is outside ${f.min}-${f.max}`);
    return n;
  };
  for (const item of part.split(",")) {
    if (item === "") throw new Error(`${f.name} field: empty list item in '${part}'`);
    const [range, stepText] = item.split("/");
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) < 1) throw new Error(`${f.name} field: step '${stepText}' must be a positive number`);
      step = Number(stepText);
    }
    let lo: number;
    let hi: number;
    if (range === "*" || range === "?") {
      lo = f.min;
      hi = f.name === "day of week" ? 6 : f.max;
    } else if (range.includes("-")) {
      const ends = range.split("-");
      if (ends.length !== 2) throw new Error(`${f.name} field: range ${range} must have two ends, such as 1-5`);
      const [a, b] = ends;
      lo = value(a);
      hi = value(b);
      if (lo > hi) throw new Error(`${f.name} field: range ${range} runs backwards`);
    } else {
      lo = value(range);
      hi = stepText !== undefined ? f.max : lo;
    }
    for (let n = lo; n <= hi; n += step) out.add(n);
  }
  return out;
}

export function scheduleMatches(s: Schedule, t: Date): boolean {
  const [min, hour, dom, month, dow] = s.sets;
  if (!min.has(t.getUTCMinutes()) || !hour.has(t.getUTCHours()) || !month.has(t.getUTCMonth() + 1)) return false;
  const domOk = dom.has(t.getUTCDate());
  const dowOk = dow.has(t.getUTCDay());
  // Classic cron: when both day fields are restricted, either may match.
  if (!s.domAny && !s.dowAny) return domOk || dowOk;
  return domOk && dowOk;
}

/** Validates a schedule for a request body; a 400 naming `schedule`. */
export function checkSchedule(expr: string): void {
  try {
    parseSchedule(expr);
  } catch (err) {
    throw badRequest(`schedule: ${(err as Error).message}`);
  }
}

// ---- runs ----
export interface CronRun {
  id: string;
  serviceId: string;
  seq: number;
  trigger: "SCHEDULED" | "MANUAL";
  command: string | null;
  commitSha: string | null;
  /** Exit code the run will end with; a command containing `exit N` ends with N. */
  exitCode: number;
  createdAtMs: number;
}

const runs = (emu: Emu) => emu.store.table<CronRun>("cronRuns");
const RUN_QUEUE_MS = 1_000;
const RUN_MS = 4_000;
/** A clock jump never materialises more than a week of scheduled runs. */
const MAX_SCAN_MINUTES = 7 * 24 * 60;
const KEEP_RUNS = 200;

export const cronSettingsBody = z.strictObject({
  schedule: z.string().optional(),
  command: z.string().max(4096, "must be at most 4096 characters").optional(),
});

export function requireCron(svc: Service): NonNullable<Service["cron"]> {
  if (svc.type !== "CRON" || !svc.cron) throw notFound("Cron job", svc.id);
  return svc.cron;
}

/** The time of the first deploy that went live: scheduled runs need a built image. */
function builtAtMs(emu: Emu, svc: Service): number | null {
  const times = deploysOf(emu, svc.id).map((d) => liveAtMs(d)).filter((t): t is number => t !== null && t <= emu.clock.now());
  return times.length ? Math.min(...times) : null;
}

function lastBuild(emu: Emu, svc: Service) {
  return deploysOf(emu, svc.id).find((d) => ["RUNNING", "REPLACED"].includes(deployStatus(emu, d)));
}

/** Adds the scheduled runs that fell due since the last look. */
export function materialise(emu: Emu, svc: Service): void {
  const cron = svc.cron;
  if (!cron || !cron.schedule) return;
  const now = emu.clock.now();
  const built = builtAtMs(emu, svc);
  if (cron.suspended || built === null || svc.suspension !== "NONE") {
    services(emu).update(svc.id, { cronCheckedAtMs: now });
    return;
  }
  let schedule: Schedule;
  try {
    schedule = parseSchedule(cron.schedule);
  } catch {
    return;
  }
  const minute = 60_000;
  let from = Math.max(svc.cronCheckedAtMs ?? 0, built);
  from = Math.max(from, now - MAX_SCAN_MINUTES * minute);
  const build = lastBuild(emu, svc);
  for (let t = Math.floor(from / minute) * minute + minute; t <= now; t += minute) {
    if (!scheduleMatches(schedule, new Date(t))) continue;
    addRun(emu, svc, "SCHEDULED", t, build?.commitSha ?? null);
  }
  services(emu).update(svc.id, { cronCheckedAtMs: now });
  const all = runsOf(emu, svc.id);
  for (const old of all.slice(KEEP_RUNS)) runs(emu).delete(old.id);
}

function addRun(emu: Emu, svc: Service, trigger: CronRun["trigger"], atMs: number, commitSha: string | null): CronRun {
  const seq = Math.max(0, ...runs(emu).where((r) => r.serviceId === svc.id).map((r) => r.seq)) + 1;
  const command = svc.cron?.command ?? svc.build.startCommand ?? null;
  const exit = command ? /\bexit\s+(\d+)/.exec(command) : null;
  return runs(emu).insert({
    id: newId(), serviceId: svc.id, seq, trigger, command, commitSha, exitCode: exit ? Number(exit[1]) : 0, createdAtMs: atMs,
  });
}

export function runsOf(emu: Emu, serviceId: string): CronRun[] {
  return runs(emu).where((r) => r.serviceId === serviceId).sort((a, b) => b.createdAtMs - a.createdAtMs || b.seq - a.seq);
}

export function startManualRun(emu: Emu, svc: Service): CronRun {
  requireCron(svc);
  materialise(emu, svc);
  const build = lastBuild(emu, svc);
  if (!build) throw conflict(`Cron job ${svc.id} has no built image yet: a manual run needs a deploy that went live, so deploy the job first`);
  return addRun(emu, svc, "MANUAL", emu.clock.now(), build.commitSha);
}

/** By id, whichever workspace owns it (the dashboard sees every workspace). */
export const findRun = (emu: Emu, id: string): CronRun | undefined => runs(emu).get(id);

export function getRun(emu: Emu, who: Principal, id: string): { run: CronRun; svc: Service } {
  const run = runs(emu).get(id);
  if (!run) throw notFound("Cron run", id);
  const svc = getService(emu, who, run.serviceId, "Cron run");
  return { run, svc };
}

export function deleteRunsOf(emu: Emu, serviceId: string): void {
  for (const r of runs(emu).where((x) => x.serviceId === serviceId)) runs(emu).delete(r.id);
}

function runTimes(emu: Emu, r: CronRun) {
  const startMs = r.createdAtMs + speedMs(emu, RUN_QUEUE_MS);
  const endMs = startMs + speedMs(emu, RUN_MS);
  return { startMs, endMs };
}

function runStatus(emu: Emu, r: CronRun): string {
  const now = emu.clock.now();
  const { startMs, endMs } = runTimes(emu, r);
  if (now < startMs) return "QUEUED";
  if (now < endMs) return "RUNNING";
  return r.exitCode === 0 ? "SUCCEEDED" : "FAILED";
}

export function runView(emu: Emu, r: CronRun) {
  const status = runStatus(emu, r);
  const { startMs, endMs } = runTimes(emu, r);
  const done = status === "SUCCEEDED" || status === "FAILED";
  return {
    id: r.id,
    serviceId: r.serviceId,
    seq: r.seq,
    status,
    trigger: r.trigger,
    exitCode: done ? r.exitCode : null,
    error: status === "FAILED" ? `the command exited with code ${r.exitCode}` : null,
    commitSha: r.commitSha,
    createdAt: new Date(r.createdAtMs).toISOString(),
    startedAt: status === "QUEUED" ? null : new Date(startMs).toISOString(),
    finishedAt: done ? new Date(endMs).toISOString() : null,
  };
}

/** A run as the route that started it answers (202): QUEUED, whatever the speed. */
export function acceptedRunView(emu: Emu, r: CronRun) {
  return { ...runView(emu, r), status: "QUEUED", exitCode: null, error: null, startedAt: null, finishedAt: null };
}

/** Log lines of a run, oldest first, as far as the run has got. */
export function runLogs(emu: Emu, r: CronRun) {
  const { startMs, endMs } = runTimes(emu, r);
  const lines: { at: number; line: string; stream: "OUTPUT" | "SYSTEM" }[] = [
    { at: r.createdAtMs, line: `Run #${r.seq} queued (${r.trigger.toLowerCase()})`, stream: "SYSTEM" },
    { at: startMs, line: `Starting: ${r.command ?? "(the image's default command)"}`, stream: "SYSTEM" },
    { at: startMs, line: "job started", stream: "OUTPUT" },
    { at: endMs, line: r.exitCode === 0 ? "job finished" : `job failed with exit code ${r.exitCode}`, stream: "OUTPUT" },
    { at: endMs, line: `Run #${r.seq} ${r.exitCode === 0 ? "succeeded" : "failed"} (exit code ${r.exitCode})`, stream: "SYSTEM" },
  ];
  const now = emu.clock.now();
  return lines
    .filter((l) => l.at <= now)
    .map((l, i) => ({ id: lineId(r.id, i), line: l.line, stream: l.stream, createdAt: new Date(l.at).toISOString() }));
}

export function cronSettingsView(svc: Service) {
  const cron = requireCron(svc);
  return { serviceId: svc.id, schedule: cron.schedule, command: cron.command, suspended: cron.suspended };
}

export function patchCron(emu: Emu, svc: Service, input: z.infer<typeof cronSettingsBody>): Service {
  const cron = requireCron(svc);
  if (input.schedule !== undefined) checkSchedule(input.schedule);
  materialise(emu, svc);
  return services(emu).update(svc.id, {
    cron: {
      ...cron,
      ...(input.schedule !== undefined ? { schedule: input.schedule.trim() } : {}),
      ...(input.command !== undefined ? { command: input.command || null } : {}),
    },
    updatedAt: emu.now(),
  });
}

export function setCronSuspended(emu: Emu, svc: Service, suspended: boolean): void {
  const cron = requireCron(svc);
  materialise(emu, svc);
  services(emu).update(svc.id, { cron: { ...cron, suspended }, cronCheckedAtMs: emu.clock.now(), updatedAt: emu.now() });
}
