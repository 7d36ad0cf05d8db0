// What `make bench-scale` measures, as series of points (cost against size, ours beside its
// baseline from the same run), and the helpers its families share.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

export type Family = "stacks" | "fleets" | "workspaces" | "providers" | "limits";

export interface Point {
  size: number;
  value: number;
  /** The baseline's value at the same size, from the same run. */
  baseline?: number;
}

export interface Series {
  family: Family;
  /** Short and stable: the table's first column and the JSON's key. */
  id: string;
  what: string;
  unit: string;
  /** What the baseline is, when there is one. */
  baselineName?: string;
  points: Point[];
  /** The goal, as the table prints it; `check` judges the points against it. */
  goal: string;
  check?: (points: Point[]) => boolean;
  /** The goal without the slope: when it holds and only the slope misses, as the baseline's does
   * too, the miss is the baseline's own (Pulumi's engine) and the verdict says so. */
  goalMet?: (points: Point[]) => boolean;
}

/** How a series grew from its smallest size to its largest: value there ÷ value here. */
export function slope(points: Point[], of: "value" | "baseline" = "value"): number | undefined {
  const first = points[0]?.[of];
  const last = points[points.length - 1]?.[of];
  return first && last !== undefined ? last / first : undefined;
}

/** Linear, with a little room: from N to 10N at most 12 times the cost. */
export const LINEAR = 12;

export const last = (points: Point[]) => points[points.length - 1];
export const linear = (points: Point[]) => (slope(points) ?? Infinity) <= LINEAR;
/** At most `max` times the baseline at the largest size. */
export const within = (max: number) => (points: Point[]) => last(points).value / last(points).baseline! <= max;

export const ratioAt = (p: Point | undefined) => (p && p.baseline ? p.value / p.baseline : undefined);

/** The middle sample (of an even count, the lower middle one). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

export function percentile(sorted: number[], q: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** A process's resident memory now and at its peak (bytes), from /proc. */
export function rssOf(pid: number): { now: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
    return { now: kb("VmRSS"), peak: kb("VmHWM") };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds this process and every descendant it has waited for used (the Pulumi CLI, the
 * language host, the program, the provider processes: each reaped by its parent), from /proc.
 */
export function treeCpuSeconds(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const own = process.cpuUsage();
  return (Number(f[13]) + Number(f[14])) / 100 + (own.user + own.system) / 1e6;
}

/** CPU seconds (user + system) a process has used, from /proc. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return undefined;
  }
}

export interface EmulatorInfo {
  baseUrl: string;
  workspaceId: string;
  apiKey: string;
  storageKeys: { workspaceId: string; accessKeyId: string; secret: string }[];
}

/** The emulator's own command in a process of its own; resolves once it printed its line, with how long that took. */
export async function emulatorProcess(args: string[]): Promise<{ info: EmulatorInfo; pid: number; readyMs: number; stop: () => Promise<void> }> {
  const cli = join(__dirname, "..", "emulator", "cli.js");
  const started = process.hrtime.bigint();
  const proc: ChildProcess = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((ok, fail) => {
    createInterface({ input: proc.stdout! }).once("line", ok);
    proc.once("exit", (code) => fail(new Error(`the emulator exited with ${code}`)));
  });
  const readyMs = Number(process.hrtime.bigint() - started) / 1e6;
  return {
    info: JSON.parse(line),
    pid: proc.pid!,
    readyMs,
    stop: () => new Promise<void>((done) => {
      if (proc.exitCode !== null) return done();
      proc.once("exit", () => done());
      proc.kill("SIGTERM");
    }),
  };
}

/** Runs `task(i)` for i below `total` on `workers` at once. */
export async function pool(total: number, workers: number, task: (i: number, worker: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: workers }, async (_, w) => {
    while (next < total) await task(next++, w);
  }));
}

const started = Date.now();
/** Minutes since the bench began. */
export const elapsedMinutes = () => (Date.now() - started) / 60_000;
/** A line of progress, with the minutes since the bench began: where a run's time goes. */
export const log = (msg: string) => process.stderr.write(`bench-scale [${elapsedMinutes().toFixed(1).padStart(4)} min]: ${msg}\n`);
