// `make bench-scale`, workspaces: an emulator with `--state` holding N objects of mixed kinds (a
// quarter each: projects; services with an env var each, in one environment; TXT records in one
// zone; objects in one bucket), made through the API as users make them. Then it is restarted
// (time to its ready line), and measured: creates (TXT records and projects, 8 clients), every
// page of each list walked to its end (the deepest pages included), and its memory. Each size is
// beside the base size (1,000 objects) measured the same way in the same run.
import { ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { cpuSeconds, type EmulatorInfo, emulatorProcess, last, LINEAR, linear, log, percentile, pool, type Point, rssOf, type Series } from "./scale-series";

const CLIENTS = 8;
const CREATES = 1_000;
const PAGE = 100;

interface Measured {
  size: number;
  createsPerSecond: number;
  cpuUsPerCreate: number;
  pageP50: number;
  pageP99: number;
  restartSeconds: number;
  rssMb: number;
  peakRssMb: number;
  fillSeconds: number;
}

export class Api {
  private readonly agents = Array.from({ length: CLIENTS }, () => new Agent({ connections: 1 }));
  constructor(private readonly info: EmulatorInfo) {}
  async call<T>(method: string, path: string, body?: unknown, worker = 0): Promise<T> {
    const res = await request(`${this.info.baseUrl}${path}`, {
      method: method as "GET", dispatcher: this.agents[worker % CLIENTS],
      headers: { authorization: `Bearer ${this.info.apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json", "idempotency-key": randomUUID() }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
  close = () => Promise.all(this.agents.map((a) => a.close()));
}

interface Places {
  zoneId: string;
  environmentId: string;
  bucket: string;
  endpoint: string;
}

/** Makes `size` objects through the API; returns where they are. */
export async function fill(api: Api, info: EmulatorInfo, size: number, s3Of: (endpoint: string) => S3Client): Promise<Places> {
  const ws = `/v1/workspaces/${info.workspaceId}`;
  const home = await api.call<{ id: string }>("POST", `${ws}/projects`, { name: "services-home" });
  const env = await api.call<{ id: string }>("POST", `/v1/projects/${home.id}/environments`, { name: "production" });
  const zone = await api.call<{ id: string }>("POST", `${ws}/dns-zones`, { name: "scale.example" });
  const bucket = await api.call<{ name: string; endpoint: string }>("POST", `${ws}/buckets`, { name: `scale-${size}` });
  const quarter = Math.floor(size / 4);
  const s3 = s3Of(bucket.endpoint);
  await pool(quarter, CLIENTS, (i, w) => api.call("POST", `${ws}/projects`, { name: `p-${i}`, description: "made by the scale bench" }, w));
  await pool(Math.floor(quarter / 2), CLIENTS, (i, w) => api.call("POST", `/v1/environments/${env.id}/services`, { name: `s-${i}`, type: "WEB", image: "nginx:1.27", envVars: [{ key: "MODE", value: "on" }] }, w));
  await pool(quarter, CLIENTS, (i, w) => api.call("POST", `/v1/dns-zones/${zone.id}/records`, { name: `r${i}`, type: "TXT", content: `v=scale-${i}` }, w));
  await pool(quarter, CLIENTS, async (i) => {
    await s3.send(new PutObjectCommand({ Bucket: bucket.name, Key: `logs/${String(i).padStart(7, "0")}.txt`, Body: `object ${i}`, ContentType: "text/plain" }));
  });
  return { zoneId: zone.id, environmentId: env.id, bucket: bucket.name, endpoint: bucket.endpoint };
}

/** Walks a list to its end; each page's time in ms. */
async function walk(get: (cursor: string | undefined) => Promise<string | undefined>): Promise<number[]> {
  const times: number[] = [];
  let cursor: string | undefined;
  do {
    const t0 = process.hrtime.bigint();
    cursor = await get(cursor);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  } while (cursor);
  return times;
}

async function measureSize(size: number): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), "cp-bench-scale-"));
  const state = join(dir, "state");
  const clients: S3Client[] = [];
  let emu: Awaited<ReturnType<typeof emulatorProcess>> | undefined;
  try {
    emu = await emulatorProcess(["--state", state, "--speed", "0"]);
    let api = new Api(emu.info);
    const s3Of = (endpoint: string) => {
      const key = emu!.info.storageKeys.find((k) => k.workspaceId === emu!.info.workspaceId)!;
      const c = new S3Client({ endpoint, region: "af-west-1", forcePathStyle: true, credentials: { accessKeyId: key.accessKeyId, secretAccessKey: key.secret } });
      clients.push(c);
      return c;
    };
    log(`workspace of ${size.toLocaleString("en-US")} objects: filling`);
    const t0 = Date.now();
    const places = await fill(api, emu.info, size, s3Of);
    const fillSeconds = (Date.now() - t0) / 1000;
    await api.close();
    await emu.stop();

    log(`workspace of ${size.toLocaleString("en-US")} objects: restart and measure`);
    emu = await emulatorProcess(["--state", state, "--speed", "0"]);
    api = new Api(emu.info);
    const ws = `/v1/workspaces/${emu.info.workspaceId}`;
    // A few requests of each kind first, so the creates measure the store, not a cold start.
    await pool(100, CLIENTS, (i, w) => api.call("POST", `/v1/dns-zones/${places.zoneId}/records`, { name: `warm${i}`, type: "TXT", content: "v=warm" }, w));
    const cpu0 = cpuSeconds(emu.pid);
    const c0 = process.hrtime.bigint();
    await pool(CREATES, CLIENTS, (i, w) => (i % 2
      ? api.call("POST", `/v1/dns-zones/${places.zoneId}/records`, { name: `new${i}`, type: "TXT", content: `v=new-${i}` }, w)
      : api.call("POST", `${ws}/projects`, { name: `new-${i}` }, w)));
    const createSeconds = Number(process.hrtime.bigint() - c0) / 1e9;
    const cpu1 = cpuSeconds(emu.pid);

    const page = async (path: string, cursor: string | undefined) =>
      (await api.call<{ nextCursor: string | null }>("GET", `${path}${cursor ? `?cursor=${cursor}` : `?limit=${PAGE}`}`)).nextCursor ?? undefined;
    // The endpoint names the port, which the restart changed.
    const buckets = await api.call<{ data: { name: string; endpoint: string }[] }>("GET", `${ws}/buckets`);
    const s3 = s3Of(buckets.data.find((b) => b.name === places.bucket)!.endpoint);
    const times = [
      ...(await walk((c) => page(`${ws}/projects`, c))),
      ...(await walk((c) => page(`/v1/dns-zones/${places.zoneId}/records`, c))),
      ...(await walk((c) => page(`/v1/environments/${places.environmentId}/services`, c))),
      ...(await walk(async (c) => (await s3.send(new ListObjectsV2Command({ Bucket: places.bucket, MaxKeys: PAGE, ContinuationToken: c }))).NextContinuationToken)),
    ].sort((a, b) => a - b);
    const rss = rssOf(emu.pid);
    await api.close();
    await emu.stop();
    return {
      size, fillSeconds,
      createsPerSecond: CREATES / createSeconds,
      cpuUsPerCreate: cpu0 !== undefined && cpu1 !== undefined ? ((cpu1 - cpu0) / CREATES) * 1e6 : NaN,
      pageP50: percentile(times, 0.5), pageP99: percentile(times, 0.99),
      restartSeconds: emu.readyMs / 1000,
      rssMb: (rss?.now ?? NaN) / 2 ** 20, peakRssMb: (rss?.peak ?? NaN) / 2 ** 20,
    };
  } finally {
    await emu?.stop();
    for (const c of clients) c.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The workspace rows at `sizes`, each point beside the base size's value. */
export async function runWorkspaces(sizes: number[], base = 1_000): Promise<{ series: Series[]; raw: Measured[] }> {
  const baseRun = await measureSize(base);
  const runs: Measured[] = [];
  for (const size of sizes) runs.push(await measureSize(size));
  const pts = (f: (m: Measured) => number): Point[] => runs.map((m) => ({ size: m.size, value: f(m), baseline: f(baseRun) }));
  const baseName = `the same at ${base.toLocaleString("en-US")} objects`;
  return {
    raw: [baseRun, ...runs],
    series: [
      {
        family: "workspaces", id: "W1", what: "creates/s (TXT records and projects, 8 clients)", unit: "creates/s", baselineName: baseName, points: pts((m) => m.createsPerSecond),
        goal: `>= 0.8x the base at the largest size`, check: (p) => last(p).value / last(p).baseline! >= 0.8,
      },
      {
        family: "workspaces", id: "W1c", what: "emulator CPU per create", unit: "us", baselineName: baseName, points: pts((m) => m.cpuUsPerCreate),
        goal: `<= 1.25x the base at the largest size`, check: (p) => last(p).value / last(p).baseline! <= 1.25,
      },
      {
        family: "workspaces", id: "W2", what: "list page p50 (every page of projects, records, services, bucket objects)", unit: "ms", baselineName: baseName, points: pts((m) => m.pageP50),
        goal: `within ${LINEAR}x from N to 10N`, check: linear,
      },
      {
        family: "workspaces", id: "W2", what: "list page p99 (every page, the deepest included)", unit: "ms", baselineName: baseName, points: pts((m) => m.pageP99),
        goal: "<= 20 ms at the largest size", check: (p) => last(p).value <= 20,
      },
      {
        family: "workspaces", id: "W3", what: "restart from --state, time to ready", unit: "s", baselineName: baseName, points: pts((m) => m.restartSeconds),
        goal: "<= 5 s at the largest size", check: (p) => last(p).value <= 5 && linear(p),
      },
      {
        family: "workspaces", id: "W4", what: "emulator RSS after the measures", unit: "MB", baselineName: baseName, points: pts((m) => m.rssMb),
        goal: "<= 500 MB at the largest size", check: (p) => last(p).value <= 500 && linear(p),
      },
    ],
  };
}
