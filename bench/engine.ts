// `make bench`, engine level (P1-P6): whole `up`s, previews and refreshes through the real Pulumi
// CLI against an in-process emulator, each measure beside its baseline from the same run. Printed
// with its target and N; nothing here is asserted.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startEmulator } from "../emulator";
import { openStack, ROOT, type StackHandle } from "../scripts/pulumi-env";
import { serializedProvider, stateOverhead, type StateEntry } from "../scripts/state-size";

const PROGRAM = join(ROOT, "bench", "programs", "engine");
const NATIVE_PROGRAM = join(ROOT, "bench", "programs", "native");
/** The processes P6 measures: Pulumi's dynamic-provider host, and the provider's own plugin. */
const DYNAMIC_HOST = /cmd\/dynamic-provider/;
const PLUGIN = /pulumi-resource-cloudplatform/;
const LIMIT_PER_MINUTE = 300;
/** V8's young generation capped at 4 MB per semi-space, for P6's second row. */
const CAPPED_NODE_OPTIONS = "--max-semi-space-size=4";
/** P4's run i waits for records that take (i + 1) times this to propagate: 4 s, 8 s, 12 s... */
const PROPAGATION_STEP_MS = 4_000;

export interface EngineOptions {
  /** Resources per `up` for P1, P2, P3 and P6. */
  n: number;
  /** Mail domains verified for P4's median. */
  mailRuns: number;
}

export interface Row {
  id: string;
  what: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
  n: number | string;
  ok: boolean;
}

/** Every request the emulator answers, with the time of its answer (the control API left out). */
interface Hit {
  t: number;
  route: string;
  status: number;
}

export async function runEngine(opts: EngineOptions): Promise<Row[]> {
  const rows: Row[] = [];
  const add = (r: Row) => rows.push(r);
  const emu = await startEmulator({ settings: { speed: 0 } });
  const hits: Hit[] = [];
  const count = emu.emu.count.bind(emu.emu);
  emu.emu.count = (route: string, status: number) => {
    hits.push({ t: Date.now(), route, status });
    count(route, status);
  };
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${emu.baseUrl}/_emulator${path}`, {
      method, headers: method === "GET" ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`control ${method} ${path}: ${res.status} ${await res.text()}`);
  };
  const since = (t0: number) => hits.filter((h) => h.t >= t0);
  const stacks: StackHandle[] = [];
  // Every measure runs the package the way users have it: installed under node_modules.
  const app = installedApp(PROGRAM);
  const nativeApp = installedApp(NATIVE_PROGRAM);
  const stackOf = async (mode: string, config: Record<string, string> = {}, opts: { programDir?: string; env?: Record<string, string> } = {}) => {
    const s = await openStack({
      programDir: opts.programDir ?? app.dir, stackName: `bench-${mode}-${process.pid}-${stacks.length}`,
      env: { CLOUDPLATFORM_BASE_URL: emu.baseUrl, CLOUDPLATFORM_API_KEY: emu.apiKey, ...opts.env },
      config: { mode, ...config },
    });
    stacks.push(s);
    return s;
  };
  const N = opts.n;
  let t0 = 0;
  // A part that fails is reported as a MISSED row; the others still run.
  const part = async (id: string, fn: () => Promise<void>) => {
    process.stderr.write(`bench: ${id}...\n`);
    try {
      await fn();
    } catch (err) {
      const lines = String((err as Error).message).split("\n").map((l) => l.trim());
      const why = lines.find((l) => /error:/i.test(l)) ?? lines.find(Boolean) ?? "unknown error";
      add({ id, what: `failed: ${why.slice(0, 160)}`, value: "-", baseline: "-", ratio: "-", target: "-", n: N, ok: false });
    }
  };

  try {
    await part("P1 P2 P6", async () => {
      const noop = await stackOf("noop", { count: String(N), tag: "noop" });
      const projects = await stackOf("projects", { count: String(N), tag: "p1" });

      // P2 (preview): a preview of N new Projects calls nothing. It also warms the toolchain for P1.
      await noop.stack.preview();
      t0 = Date.now();
      await projects.stack.preview();
      const previewCalls = since(t0).length;
      add({ id: "P2", what: "API calls: preview of N new Projects", value: String(previewCalls), baseline: "-", ratio: "-", target: "0", n: N, ok: previewCalls === 0 });

      // P1 and P6: the up of N Projects against the up of N no-op dynamic resources, with the RSS of
      // each run's dynamic provider host; best of two rounds (the second with other names, so
      // that no create replays the first round's idempotency keys).
      let noopSeconds = Infinity;
      let projectSeconds = Infinity;
      let noopRss = 0;
      let projectRss = 0;
      let upHits: Hit[] = [];
      for (let round = 0; round < 2; round++) {
        if (round > 0) {
          await Promise.all([projects.stack.destroy(), noop.stack.destroy()]);
          await noop.stack.setConfig("tag", { value: `noop${round}` });
          await projects.stack.setConfig("tag", { value: `p1r${round}` });
        }
        let rss = sampleProviderRss(DYNAMIC_HOST);
        t0 = Date.now();
        await noop.stack.up();
        noopSeconds = Math.min(noopSeconds, (Date.now() - t0) / 1000);
        noopRss = Math.max(noopRss, await rss());
        rss = sampleProviderRss(DYNAMIC_HOST);
        t0 = Date.now();
        await projects.stack.up();
        projectSeconds = Math.min(projectSeconds, (Date.now() - t0) / 1000);
        projectRss = Math.max(projectRss, await rss());
        if (round === 0) upHits = since(t0);
      }
      add({ id: "P1", what: "up: N Projects vs N no-op dynamic resources (best of 2 rounds)", value: `${projectSeconds.toFixed(1)}s`, baseline: `${noopSeconds.toFixed(1)}s`, ratio: ratio(projectSeconds, noopSeconds), target: "<= 1.2x", n: N, ok: projectSeconds / noopSeconds <= 1.2 });

      // P2 (create, refresh): calls per resource, by route.
      const creates = upHits.filter((h) => h.route === "POST /v1/workspaces/:workspaceId/projects").length;
      add({ id: "P2", what: `API calls: create (${describe(upHits)})`, value: (upHits.length / N).toFixed(2), baseline: "-", ratio: "-", target: "1/resource + waiter polls", n: N, ok: creates === N && upHits.length - creates <= 1 });
      t0 = Date.now();
      await projects.stack.refresh();
      const refreshHits = since(t0);
      add({ id: "P2", what: `API calls: refresh (${describe(refreshHits)})`, value: (refreshHits.length / N).toFixed(2), baseline: "-", ratio: "-", target: "<= 1/resource", n: N, ok: refreshHits.length <= N });

      add({ id: "P6", what: "peak RSS of the dynamic provider host: N Projects vs N no-op", value: mb(projectRss), baseline: mb(noopRss), ratio: ratio(projectRss, noopRss), target: "<= 150 MB", n: N, ok: withinRss(projectRss) });
      await projects.stack.destroy();
      await noop.stack.destroy();

      // P6 again with V8's young generation capped for the engine's node processes (the knob the
      // README gives): V8 sizes it at start-up, and the engine, not the provider, starts the host.
      const capped = await stackOf("projects", { count: String(N), tag: "p6" }, { env: { NODE_OPTIONS: CAPPED_NODE_OPTIONS } });
      const rss = sampleProviderRss(DYNAMIC_HOST);
      await capped.stack.up();
      const cappedRss = await rss();
      add({ id: "P6", what: `peak RSS of the dynamic provider host: N Projects, NODE_OPTIONS=${CAPPED_NODE_OPTIONS}`, value: mb(cappedRss), baseline: "-", ratio: "-", target: "<= 150 MB", n: N, ok: withinRss(cappedRss) });
      await capped.stack.destroy();

      // P6 for the native plugin: the provider's own process, without Pulumi's dynamic runtime.
      const native = await stackOf("native", { count: String(N), tag: "p6n" }, { programDir: nativeApp.dir });
      const nativeSample = sampleProviderRss(PLUGIN);
      await native.stack.up();
      const nativeRss = await nativeSample();
      add({ id: "P6", what: "peak RSS of the native plugin (pulumi-resource-cloudplatform): N Projects", value: mb(nativeRss), baseline: "-", ratio: "-", target: "<= 150 MB", n: N, ok: withinRss(nativeRss) });
      await native.stack.destroy();
    });

    // P3: N creates under 300/min. The create window (first to last create answered) against its
    // theoretical minimum: the burst goes at once, the rest at the limit's pace.
    await part("P3", async () => {
      await control("PUT", "/rate-limit", { perMinute: LIMIT_PER_MINUTE });
      const burst = emu.emu.rateLimit.get()!.burst;
      const limited = await stackOf("projects", { count: String(N), tag: "p3" });
      t0 = Date.now();
      const failed = await limited.stack.up().then(() => undefined, (e: Error) => e).finally(() => control("DELETE", "/rate-limit"));
      const upSeconds = (Date.now() - t0) / 1000;
      const p3 = since(t0);
      const created = p3.filter((h) => h.route === "POST /v1/workspaces/:workspaceId/projects" && h.status < 300);
      const window = created.length > 1 ? (created[created.length - 1].t - created[0].t) / 1000 : NaN;
      const minimum = ((N - burst) / LIMIT_PER_MINUTE) * 60;
      const throttled = p3.filter((h) => h.status === 429).length;
      const errors = p3.filter((h) => h.status >= 400 && h.status !== 429).length + (failed ? 1 : 0);
      add({ id: "P3", what: `N creates under ${LIMIT_PER_MINUTE}/min: create window vs minimum (${throttled} 429s, ${errors} errors; whole up ${upSeconds.toFixed(1)}s)`, value: `${window.toFixed(1)}s`, baseline: `${minimum.toFixed(1)}s`, ratio: ratio(window, minimum), target: "<= 1.1x, 0 errors", n: N, ok: window / minimum <= 1.1 && errors === 0 && created.length === N });
      await limited.stack.destroy();
    });

    // P4: a mail domain's records become visible some seconds after they are written (longer on
    // each run); how long after that the verification finishes, and how often it asks meanwhile.
    await part("P4", async () => {
      const detected: number[] = [];
      const delays: number[] = [];
      let waitingRequests = 0;
      let waitingSeconds = 0;
      const mail = await stackOf("mail", { zone: "bench-mail0.test" });
      for (let run = 0; run < opts.mailRuns; run++) {
        const zone = `bench-mail${run}.test`;
        const propagation = PROPAGATION_STEP_MS * (run + 1);
        emu.emu.settings.dnsPropagationMs = propagation;
        await control("POST", "/dns/delegations", { domain: zone });
        await mail.stack.setConfig("zone", { value: zone });
        t0 = Date.now();
        await mail.stack.up().finally(() => void (emu.emu.settings.dnsPropagationMs = 0));
        const z = emu.emu.store.table<any>("dnsZones").where((r: any) => r.name === zone)[0];
        const written = Math.max(...emu.emu.store.table<any>("dnsRecords").where((r: any) => r.zoneId === z.id && r.origin === "USER").map((r: any) => Date.parse(r.updatedAt)));
        const visible = Math.max(written, Date.parse(z.publishedAt)) + propagation;
        const verifiedAt = Date.parse(emu.emu.store.table<any>("mailDomains").where((d: any) => d.name === `news.${zone}`)[0].verifiedAt);
        detected.push((verifiedAt - visible) / 1000);
        delays.push(propagation / 1000);
        waitingRequests += since(t0).filter((h) => h.t > written && h.t <= verifiedAt && /domains/.test(h.route)).length;
        waitingSeconds += (verifiedAt - written) / 1000;
        await mail.stack.destroy();
      }
      const median = [...detected].sort((a, b) => a - b)[Math.floor(detected.length / 2)];
      add({ id: "P4", what: `mail verification after the records are visible (propagation ${delays.map((d, i) => `${d}s: ${detected[i].toFixed(2)}s`).join(", ")})`, value: `${median.toFixed(2)}s`, baseline: "-", ratio: "-", target: "<= 1.5s median", n: opts.mailRuns, ok: median <= 1.5 });
      const rate = waitingRequests / waitingSeconds;
      add({ id: "P4", what: `requests while waiting (${waitingRequests} in ${waitingSeconds.toFixed(1)}s)`, value: `${rate.toFixed(2)}/s`, baseline: "-", ratio: "-", target: "<= 0.5/s", n: opts.mailRuns, ok: rate <= 0.5 });
    });

    // P5, installed package (as users have it): the provider is a require of its kind's module.
    await part("P5", async () => {
      const lean = await stackOf("lean", { count: "3", tag: "lean" });
      await lean.stack.up();
      const { project, trivial } = await leanPair(lean);
      const ours = serializedProvider(project).length;
      const theirs = serializedProvider(trivial).length;
      add({ id: "P5", what: "installed: serialized provider bytes, Project vs no-op", value: `${ours}B`, baseline: `${theirs}B`, ratio: ratio(ours, theirs), target: "<= 1.0x", n: 3, ok: ours <= theirs });
      add({ id: "P5", what: `installed: state beyond own properties, Project (no-op: ${stateOverhead(trivial)}B)`, value: `${stateOverhead(project)}B`, baseline: "-", ratio: "-", target: "<= 2 KB", n: 3, ok: stateOverhead(project) <= 2048 });
      await lean.stack.destroy();

      // Linked checkout (as this repository runs its programs): the provider is stored by value.
      const linked = await stackOf("lean", { count: "1", tag: "linked" }, { programDir: PROGRAM });
      await linked.stack.up();
      const linkedPair = await leanPair(linked);
      const lp = serializedProvider(linkedPair.project).length;
      const ln = serializedProvider(linkedPair.trivial).length;
      add({ id: "P5", what: "linked checkout: serialized provider bytes, Project vs no-op", value: `${lp}B`, baseline: `${ln}B`, ratio: ratio(lp, ln), target: "(informative)", n: 1, ok: true });
      await linked.stack.destroy();
    });
  } finally {
    for (const s of stacks) await s.dispose().catch(() => undefined);
    await emu.close();
    app.dispose();
    nativeApp.dispose();
  }
  return rows;
}

export function printEngine(rows: Row[], title = "engine measure (real Pulumi CLI)"): void {
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(`\n${pad("#", 4)}${pad(title, 96)}${pad("value", 10)}${pad("baseline", 10)}${pad("ratio", 8)}${pad("N", 5)}target`);
  for (const r of rows) {
    console.log(`${pad(r.id, 4)}${pad(r.what, 96)}${pad(r.value, 10)}${pad(r.baseline, 10)}${pad(r.ratio, 8)}${pad(String(r.n), 5)}${r.target} ${r.ok ? "ok" : "MISSED"}`);
  }
}

/** P6's target: a sample was taken and it is at most 150 MB. */
const withinRss = (bytes: number) => bytes > 0 && bytes <= 150 * 2 ** 20;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)}MB`;

/** Requests by route, most frequent first: "60 POST /v1/..., 1 GET /v1/workspaces". */
function describe(hits: Hit[]): string {
  const by = new Map<string, number>();
  for (const h of hits) by.set(h.route, (by.get(h.route) ?? 0) + 1);
  return [...by].sort((a, b) => b[1] - a[1]).map(([route, n]) => `${n} ${route}`).join(", ") || "none";
}

/** A `lean` stack's first Project and first no-op resource, as state holds them. */
async function leanPair(s: StackHandle): Promise<{ project: StateEntry; trivial: StateEntry }> {
  const rs = await exported(s);
  return {
    project: rs.find((r) => r.type.endsWith("cloudplatform:Project"))!,
    trivial: rs.find((r) => r.type === "pulumi-nodejs:dynamic:Resource")!,
  };
}

async function exported(s: StackHandle): Promise<StateEntry[]> {
  const state = await s.stack.exportStack();
  return ((state.deployment.resources ?? []) as StateEntry[]).filter((r) => r.type.includes("cloudplatform:") || r.type.startsWith("pulumi-nodejs:"));
}

/**
 * The peak RSS (bytes) of the processes started by this one whose command line matches `which`:
 * their high-water mark (VmHWM in /proc), read until stopped, so a short peak between two reads
 * still counts; `ps`'s current RSS where /proc has none.
 */
export function sampleProviderRss(which: RegExp): () => Promise<number> {
  let stopped = false;
  let max = 0;
  const loop = (async () => {
    while (!stopped) {
      const { stdout } = await promisify(execFile)("ps", ["-e", "-o", "pid=,ppid=,rss=,args="]);
      const procs = stdout.split("\n").filter(Boolean).map((line) => {
        const [pid, ppid, rss, ...args] = line.trim().split(/\s+/);
        return { pid: Number(pid), ppid: Number(ppid), rss: Number(rss) * 1024, args: args.join(" ") };
      });
      const ours = new Set([process.pid]);
      for (let grew = true; grew;) {
        grew = false;
        for (const p of procs) if (!ours.has(p.pid) && ours.has(p.ppid)) grew = Boolean(ours.add(p.pid));
      }
      for (const p of procs) if (ours.has(p.pid) && which.test(p.args)) max = Math.max(max, peakRss(p.pid) ?? p.rss);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return max;
  };
}

function peakRss(pid: number): number | undefined {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return hwm ? Number(hwm[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A bench program in a fresh folder with this package installed the way npm installs it (its
 * published files copied under node_modules); the other dependencies are links to this checkout's.
 */
export function installedApp(program: string): { dir: string; dispose(): void } {
  const root = mkdtempSync(join(tmpdir(), "cloudplatform-bench-"));
  const dir = join(root, "app");
  const modules = join(dir, "node_modules");
  mkdirSync(modules, { recursive: true });
  // A folder of the program with a package.json of its own is a package it installs (node_modules/<folder>).
  for (const f of readdirSync(program)) {
    const own = existsSync(join(program, f, "package.json"));
    cpSync(join(program, f), join(own ? modules : dir, f), { recursive: true });
  }
  const pkg = join(modules, "pulumi-cloudplatform");
  for (const f of ["package.json", "dist/sdk", "dist/provider", "dist/emulator", "bin", "schema.json"]) cpSync(join(ROOT, f), join(pkg, f), { recursive: true });
  // @pulumi/pulumi is copied too: its serializer names a module by resolving the package from
  // where it itself lies, which must be this app.
  cpSync(join(ROOT, "node_modules", "@pulumi"), join(modules, "@pulumi"), { recursive: true });
  for (const entry of readdirSync(join(ROOT, "node_modules"))) {
    if (!["pulumi-cloudplatform", "@pulumi"].includes(entry) && !entry.startsWith(".")) symlinkSync(join(ROOT, "node_modules", entry), join(modules, entry));
  }
  return { dir, dispose: () => rmSync(root, { recursive: true, force: true }) };
}
