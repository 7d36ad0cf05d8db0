// The harness's catalog of out-of-band edits: per resource type, each kind of change a person or
// the platform can make through the REST API, the request(s) that make it, the truth it creates
// (the findings cloudplatform-drift must report, or none) and how it is undone. The truth is
// written from the rules of docs/drift.md, never read back from the command.
import fc from "fast-check";
import type { CloudPlatformClient } from "../../../provider/client";
import type { TestEmulator } from "../../support/emulator";
import type { HarnessStack } from "./fleet";
import { IGNORED } from "./declared";

/** A finding as the harness scores it: `<stack>|<Type> <name>|<change> <path>`, `...|deleted`, or `unmanaged|<key>`. */
export type Truth = string;

export interface Ctx {
  emu: TestEmulator;
  api: CloudPlatformClient;
  s: HarnessStack;
}

/** One edit made: its kind, the truth it creates, how to undo it (`undefined`: only `up` can). */
export interface Edit {
  kind: string;
  /** The stack it was made in (`dyn`, `nat`, `py`). */
  stack?: string;
  /** The resource type it is counted under in the table (`unmanaged <Kind>` for unmanaged additions). */
  type: string;
  truth: Truth[];
  /** Values that must never appear in a report. */
  secrets: string[];
  revert?: () => Promise<void>;
}

export interface EditKind {
  kind: string;
  type: string;
  /** What the edit touches: two edits of one round never share a claim (`<resource>` claims all of it). */
  claims: string[];
  /** Only `up --refresh` puts it back (an object deleted, content deployed by hand). */
  up?: boolean;
  /** Why the truth is empty, when it is: `platform`, `ignoreChanges` or `undeclared`. */
  silent?: "platform" | "ignoreChanges" | "undeclared";
  /** Makes the change; `n` is the round's random number for its new value. */
  apply(c: Ctx, n: number): Promise<Edit>;
}

const id = (c: Ctx, key: string): string => {
  const r = c.s.res[key];
  if (!r) throw new Error(`${c.s.name}: no ${key} in state`);
  return r.id;
};
const out = (c: Ctx, key: string) => c.s.res[key].outputs as Record<string, any>;
const t = (c: Ctx, res: string, change: string): Truth => `${c.s.name}|${res}|${change}`;
/** The JSON text of a path segment, as pathText writes a key holding `/` or `.`. */
const q = (k: string) => JSON.stringify(k);
const ws = (c: Ctx) => c.emu.workspaceId;

/** A change the program's value is restored from by a second request. */
function edit(kind: string, type: string, truth: Truth[], revert: () => Promise<void>, secrets: string[] = []): Edit {
  return { kind, type, truth, revert, secrets };
}

// ---- Project -------------------------------------------------------------------------------------
const project: EditKind[] = [
  {
    kind: "Project.displayName", type: "Project", claims: ["Project app.displayName"],
    async apply(c, n) {
      await c.api.patch(`/v1/projects/${id(c, "Project app")}`, { displayName: `Edited ${n}` });
      return edit(this.kind, this.type, [t(c, "Project app", "update displayName")], () => c.api.patch(`/v1/projects/${id(c, "Project app")}`, { displayName: c.s.spec.project.displayName }).then(() => {}));
    },
  },
  {
    kind: "Project.description (ignoreChanges)", type: "Project", claims: ["Project app.description"], silent: "ignoreChanges",
    async apply(c, n) {
      await c.api.patch(`/v1/projects/${id(c, "Project app")}`, { description: `edited by hand ${n}` });
      return edit(this.kind, this.type, [], () => c.api.patch(`/v1/projects/${id(c, "Project app")}`, { description: c.s.spec.project.description }).then(() => {}));
    },
  },
  {
    kind: "Project.description (undeclared)", type: "Project", claims: ["Project spare"], silent: "undeclared",
    async apply(c, n) {
      await c.api.patch(`/v1/projects/${id(c, "Project spare")}`, { description: `set by hand ${n}`, displayName: `Spare ${n}` });
      return edit(this.kind, this.type, [], async () => {});
    },
  },
  {
    kind: "Project deleted", type: "Project", claims: ["Project spare"], up: true,
    async apply(c) {
      await c.api.delete(`/v1/projects/${id(c, "Project spare")}`);
      return { kind: this.kind, type: this.type, truth: [t(c, "Project spare", "deleted")], secrets: [] };
    },
  },
];

// ---- Environment ---------------------------------------------------------------------------------
const environment: EditKind[] = [
  {
    kind: "Environment deleted", type: "Environment", claims: ["Environment staging"], up: true,
    async apply(c) {
      await c.api.delete(`/v1/environments/${id(c, "Environment staging")}`);
      return { kind: this.kind, type: this.type, truth: [t(c, "Environment staging", "deleted")], secrets: [] };
    },
  },
];

// ---- Service ---------------------------------------------------------------------------------------
/** A PATCH of the web service's `build` or `source` field, restored from the spec. */
function webField(prop: string, part: "build" | "source", field: string, value: (n: number) => unknown, spec: (c: Ctx) => unknown): EditKind {
  return {
    kind: `Service.${prop}`, type: "Service", claims: [`Service web.${prop}`, "Service web.patch"],
    async apply(c, n) {
      const svc = `/v1/services/${id(c, "Service web")}`;
      await c.api.patch(svc, { [part]: { [field]: value(n) } });
      return edit(this.kind, this.type, [t(c, "Service web", `update ${prop}`)], () => c.api.patch(svc, { [part]: { [field]: spec(c) } }).then(() => {}));
    },
  };
}
const envVarsOf = (c: Ctx, svc: string) => `/v1/services/${id(c, svc)}/env-vars`;
const service: EditKind[] = [
  webField("image", "source", "image", (n) => `nginx:1.${28 + (n % 50)}`, (c) => c.s.spec.web.image),
  webField("imageCommand", "source", "imageCommand", (n) => `nginx -g edited-${n}`, (c) => c.s.spec.web.imageCommand),
  webField("startCommand", "build", "startCommand", (n) => `serve --edited ${n}`, (c) => c.s.spec.web.startCommand),
  webField("buildCommand", "build", "buildCommand", (n) => `make edited-${n}`, (c) => c.s.spec.web.buildCommand),
  webField("healthCheckPath", "build", "healthCheckPath", (n) => `/edited/${n}`, (c) => c.s.spec.web.healthCheckPath),
  webField("port", "build", "port", (n) => 9000 + (n % 900), (c) => c.s.spec.web.port),
  {
    kind: "Service.name", type: "Service", claims: ["Service web.name", "Service web.patch"],
    async apply(c, n) {
      const svc = `/v1/services/${id(c, "Service web")}`;
      await c.api.patch(svc, { name: `web-edited-${n}` });
      return edit(this.kind, this.type, [t(c, "Service web", "update name")], () => c.api.patch(svc, { name: c.s.spec.web.name }).then(() => {}));
    },
  },
  {
    kind: "Service.runtimeVersion (undeclared)", type: "Service", claims: ["Service web.runtimeVersion", "Service web.patch"], silent: "undeclared",
    async apply(c, n) {
      await c.api.patch(`/v1/services/${id(c, "Service web")}`, { build: { runtimeVersion: `20.${n % 20}` } });
      return edit(this.kind, this.type, [], async () => {});
    },
  },
  {
    kind: "Service.suspended", type: "Service", claims: ["Service web.suspended", "Service web.deploy"],
    async apply(c) {
      await c.api.post(`/v1/services/${id(c, "Service web")}/suspend`);
      return edit(this.kind, this.type, [t(c, "Service web", "update suspended")], () => c.api.post(`/v1/services/${id(c, "Service web")}/resume`).then(() => {}));
    },
  },
  {
    kind: "Service deploy (platform)", type: "Service", claims: ["Service web.deploy"], silent: "platform",
    async apply(c) {
      await c.api.post(`/v1/services/${id(c, "Service web")}/deploys`);
      return edit(this.kind, this.type, [], async () => {});
    },
  },
  {
    kind: "Service.envVars value", type: "Service", claims: ["Service web.envVars.MODE"],
    async apply(c, n) {
      const mode = c.s.spec.web.envVars.find((v) => v.key === "MODE")!;
      await c.api.patch(envVarsOf(c, "Service web"), { envVars: [{ key: "MODE", value: `edited-${n}` }] });
      return edit(this.kind, this.type, [t(c, "Service web", "update envVars[MODE].value")], () => c.api.patch(envVarsOf(c, "Service web"), { envVars: [{ key: "MODE", value: mode.value, scope: mode.scope, secret: false }] }).then(() => {}));
    },
  },
  {
    kind: "Service.envVars deleted", type: "Service", claims: ["Service web.envVars.MODE"],
    async apply(c) {
      const mode = c.s.spec.web.envVars.find((v) => v.key === "MODE")!;
      await c.api.delete(`${envVarsOf(c, "Service web")}/MODE`);
      return edit(this.kind, this.type, [t(c, "Service web", "delete envVars[MODE]")], () => c.api.patch(envVarsOf(c, "Service web"), { envVars: [{ key: "MODE", value: mode.value, scope: mode.scope, secret: false }] }).then(() => {}));
    },
  },
  {
    kind: "Service.envVars scope", type: "Service", claims: ["Service web.envVars.LEVEL"],
    async apply(c, n) {
      const level = c.s.spec.web.envVars.find((v) => v.key === "LEVEL")!;
      const scope = (["ALL", "UAT", "DEV"] as const)[n % 3];
      await c.api.patch(envVarsOf(c, "Service web"), { envVars: [{ key: "LEVEL", value: level.value, scope }] });
      return edit(this.kind, this.type, [t(c, "Service web", "update envVars[LEVEL].scope")], () => c.api.patch(envVarsOf(c, "Service web"), { envVars: [{ key: "LEVEL", value: level.value, scope: level.scope }] }).then(() => {}));
    },
  },
  {
    kind: "Service.envVars secret rotated", type: "Service", claims: ["Service web.envVars.TOKEN"],
    async apply(c, n) {
      const rotated = `tok-rotated-${n}-s3cr3t`;
      await c.api.patch(envVarsOf(c, "Service web"), { envVars: [{ key: "TOKEN", value: rotated, secret: true }] });
      return edit(this.kind, this.type, [t(c, "Service web", "update envVars[TOKEN].value")], () => c.api.patch(envVarsOf(c, "Service web"), { envVars: [{ key: "TOKEN", value: c.s.secrets.token, scope: "ALL", secret: true }] }).then(() => {}), [rotated]);
    },
  },
  {
    // `up` leaves an env var the service does not declare alone (an EnvVar resource may hold it): unmanaged.
    kind: "unmanaged EnvVar (on a service declaring its own)", type: "unmanaged EnvVar", claims: ["Service web.envVars.EXTRA"],
    async apply(c, n) {
      await c.api.patch(envVarsOf(c, "Service web"), { envVars: [{ key: "EXTRA", value: `added-${n}` }] });
      return edit(this.kind, this.type, [`unmanaged|EnvVar:${id(c, "Service web")}/EXTRA`], () => c.api.delete(`${envVarsOf(c, "Service web")}/EXTRA`));
    },
  },
  {
    kind: "Service.secretFiles rotated", type: "Service", claims: ["Service web.secretFiles.app"],
    async apply(c, n) {
      const content = `{"key":"rotated-${n}-s3cr3t"}`;
      const files = `/v1/services/${id(c, "Service web")}/secret-files`;
      await c.api.put(files, { path: c.s.spec.web.filePath, content });
      return edit(this.kind, this.type, [t(c, "Service web", `update secretFiles[${q(c.s.spec.web.filePath)}].content`)], () => c.api.put(files, { path: c.s.spec.web.filePath, content: c.s.secrets.fileContent }).then(() => {}), [content]);
    },
  },
  {
    kind: "unmanaged SecretFile (on a service declaring its own)", type: "unmanaged SecretFile", claims: ["Service web.secretFiles.extra"],
    async apply(c, n) {
      const content = `extra-${n}-s3cr3t`;
      const files = `/v1/services/${id(c, "Service web")}/secret-files`;
      await c.api.put(files, { path: "/etc/extra.conf", content });
      return edit(this.kind, this.type, [`unmanaged|SecretFile:${id(c, "Service web")}:/etc/extra.conf`], () => c.api.delete(`${files}?path=${encodeURIComponent("/etc/extra.conf")}`), [content]);
    },
  },
  {
    kind: "Service.schedule (cron)", type: "Service", claims: ["Service job.schedule"],
    async apply(c, n) {
      const cron = `/v1/services/${id(c, "Service job")}/cron`;
      await c.api.patch(cron, { schedule: `${n % 60} ${n % 24} * * *` === c.s.spec.job.schedule ? "5 5 * * *" : `${n % 60} ${n % 24} * * *` });
      return edit(this.kind, this.type, [t(c, "Service job", "update schedule")], () => c.api.patch(cron, { schedule: c.s.spec.job.schedule }).then(() => {}));
    },
  },
  {
    kind: "Service.command (cron, ignoreChanges)", type: "Service", claims: ["Service job.command"], silent: "ignoreChanges",
    async apply(c, n) {
      const cron = `/v1/services/${id(c, "Service job")}/cron`;
      await c.api.patch(cron, { command: `echo edited ${n}` });
      return edit(this.kind, this.type, [], () => c.api.patch(cron, { command: c.s.spec.job.command }).then(() => {}));
    },
  },
  {
    kind: "Service.cronSuspended", type: "Service", claims: ["Service job.cronSuspended", "Service job.run"],
    async apply(c) {
      await c.api.post(`/v1/services/${id(c, "Service job")}/cron/suspend`);
      return edit(this.kind, this.type, [t(c, "Service job", "update cronSuspended")], () => c.api.post(`/v1/services/${id(c, "Service job")}/cron/resume`).then(() => {}));
    },
  },
  {
    kind: "Service cron run (platform)", type: "Service", claims: ["Service job.run"], silent: "platform",
    async apply(c) {
      await c.api.post(`/v1/services/${id(c, "Service job")}/runs`);
      return edit(this.kind, this.type, [], async () => {});
    },
  },
  {
    kind: "Service.image (cron)", type: "Service", claims: ["Service job.image"],
    async apply(c, n) {
      const svc = `/v1/services/${id(c, "Service job")}`;
      await c.api.patch(svc, { source: { image: `busybox:1.${37 + (n % 50)}` } });
      return edit(this.kind, this.type, [t(c, "Service job", "update image")], () => c.api.patch(svc, { source: { image: c.s.spec.job.image } }).then(() => {}));
    },
  },
  {
    kind: "Service deleted", type: "Service", claims: ["Service web"], up: true,
    async apply(c) {
      await c.api.delete(`/v1/services/${id(c, "Service web")}`);
      return { kind: this.kind, type: this.type, truth: [t(c, "Service web", "deleted")], secrets: [] };
    },
  },
];

// ---- EnvVar and SecretFile --------------------------------------------------------------------------
const jobVars = (c: Ctx) => `/v1/services/${id(c, "Service job")}/env-vars`;
const envVar: EditKind[] = [
  {
    kind: "EnvVar.value", type: "EnvVar", claims: ["EnvVar region"],
    async apply(c, n) {
      const r = c.s.spec.region;
      await c.api.patch(jobVars(c), { envVars: [{ key: r.key, value: `edited-${n}` }] });
      return edit(this.kind, this.type, [t(c, "EnvVar region", "update value")], () => c.api.patch(jobVars(c), { envVars: [{ key: r.key, value: r.value, scope: r.scope, secret: false }] }).then(() => {}));
    },
  },
  {
    kind: "EnvVar.scope", type: "EnvVar", claims: ["EnvVar region"],
    async apply(c, n) {
      const r = c.s.spec.region;
      await c.api.patch(jobVars(c), { envVars: [{ key: r.key, value: r.value, scope: (["PROD", "UAT", "DEV"] as const)[n % 3] }] });
      return edit(this.kind, this.type, [t(c, "EnvVar region", "update scope")], () => c.api.patch(jobVars(c), { envVars: [{ key: r.key, value: r.value, scope: r.scope, secret: false }] }).then(() => {}));
    },
  },
  {
    kind: "EnvVar deleted", type: "EnvVar", claims: ["EnvVar region"], up: true,
    async apply(c) {
      await c.api.delete(`${jobVars(c)}/${c.s.spec.region.key}`);
      return { kind: this.kind, type: this.type, truth: [t(c, "EnvVar region", "deleted")], secrets: [] };
    },
  },
  {
    kind: "EnvVar secret rotated", type: "EnvVar", claims: ["EnvVar apikey"],
    async apply(c, n) {
      const rotated = `api-rotated-${n}-s3cr3t`;
      const key = c.s.spec.apiKeyVar.key;
      await c.api.patch(jobVars(c), { envVars: [{ key, value: rotated, secret: true }] });
      return edit(this.kind, this.type, [t(c, "EnvVar apikey", "update value")], () => c.api.patch(jobVars(c), { envVars: [{ key, value: c.s.secrets.apiKey, scope: "ALL", secret: true }] }).then(() => {}), [rotated]);
    },
  },
];
const secretFile: EditKind[] = [
  {
    kind: "SecretFile rotated", type: "SecretFile", claims: ["SecretFile cert"],
    async apply(c, n) {
      const content = `-----cert rotated-${n}-s3cr3t-----`;
      const files = `/v1/services/${id(c, "Service job")}/secret-files`;
      await c.api.put(files, { path: c.s.spec.certPath, content });
      return edit(this.kind, this.type, [t(c, "SecretFile cert", "update content")], () => c.api.put(files, { path: c.s.spec.certPath, content: c.s.secrets.cert }).then(() => {}), [content]);
    },
  },
  {
    kind: "SecretFile deleted", type: "SecretFile", claims: ["SecretFile cert"], up: true,
    async apply(c) {
      await c.api.delete(`/v1/services/${id(c, "Service job")}/secret-files?path=${encodeURIComponent(c.s.spec.certPath)}`);
      return { kind: this.kind, type: this.type, truth: [t(c, "SecretFile cert", "deleted")], secrets: [] };
    },
  },
];

// ---- DNS ------------------------------------------------------------------------------------------------
/** A record's PATCH: the route needs name, type and content, so each sends the spec's for the rest. */
function recordEdit(name: "www" | "txt" | "mx", prop: "content" | "ttl" | "priority", value: (n: number) => string | number): EditKind {
  const ignoredProp = IGNORED[name]?.includes(prop);
  return {
    kind: `DnsRecord.${prop}${ignoredProp ? " (ignoreChanges)" : ""}`, type: "DnsRecord", claims: [`DnsRecord ${name}`], silent: ignoredProp ? "ignoreChanges" : undefined,
    async apply(c, n) {
      const spec = c.s.spec.records[name];
      const path = `/v1/dns-records/${id(c, `DnsRecord ${name}`)}`;
      const base = { name: spec.name, type: spec.type, content: spec.content };
      await c.api.patch(path, { ...base, [prop]: value(n) });
      const back = { ...base, ttl: spec.ttl, ...(spec.priority != null ? { priority: spec.priority } : {}) };
      return edit(this.kind, this.type, ignoredProp ? [] : [t(c, `DnsRecord ${name}`, `update ${prop}`)], () => c.api.patch(path, back).then(() => {}));
    },
  };
}
const dns: EditKind[] = [
  recordEdit("www", "content", (n) => `edited-${n}.example.net`),
  recordEdit("www", "ttl", (n) => 60 + (n % 200)),
  recordEdit("txt", "content", (n) => `v=edited${n}`),
  recordEdit("txt", "ttl", (n) => 120 + (n % 400)),
  recordEdit("mx", "priority", (n) => 20 + (n % 50)),
  recordEdit("mx", "content", (n) => `mx${n}.example.net`),
  {
    kind: "DnsRecord deleted", type: "DnsRecord", claims: ["DnsRecord www"], up: true,
    async apply(c) {
      await c.api.delete(`/v1/dns-records/${id(c, "DnsRecord www")}`);
      return { kind: this.kind, type: this.type, truth: [t(c, "DnsRecord www", "deleted")], secrets: [] };
    },
  },
  {
    kind: "DnsRecordSet record content", type: "DnsRecordSet", claims: ["DnsRecordSet set.b"],
    async apply(c, n) {
      const rec = (out(c, "DnsRecordSet set").records as { id: string; name: string }[]).find((r) => r.name === "b")!;
      const spec = c.s.spec.set.find((r) => r.name === "b")!;
      await c.api.patch(`/v1/dns-records/${rec.id}`, { name: spec.name, type: spec.type, content: `edited ${n}` });
      return edit(this.kind, this.type, [t(c, "DnsRecordSet set", "update records")], () => c.api.patch(`/v1/dns-records/${rec.id}`, { name: spec.name, type: spec.type, content: spec.content, ttl: spec.ttl }).then(() => {}));
    },
  },
  {
    kind: "DnsRecordSet record ttl", type: "DnsRecordSet", claims: ["DnsRecordSet set.a"],
    async apply(c, n) {
      const rec = (out(c, "DnsRecordSet set").records as { id: string; name: string }[]).find((r) => r.name === "a")!;
      const spec = c.s.spec.set.find((r) => r.name === "a")!;
      await c.api.patch(`/v1/dns-records/${rec.id}`, { name: spec.name, type: spec.type, content: spec.content, ttl: 900 + (n % 100) });
      return edit(this.kind, this.type, [t(c, "DnsRecordSet set", "update records")], () => c.api.patch(`/v1/dns-records/${rec.id}`, { name: spec.name, type: spec.type, content: spec.content, ttl: spec.ttl }).then(() => {}));
    },
  },
  {
    kind: "DnsRecordSet record deleted", type: "DnsRecordSet", claims: ["DnsRecordSet set.c"], up: true,
    async apply(c) {
      const rec = (out(c, "DnsRecordSet set").records as { id: string; name: string }[]).find((r) => r.name === "c")!;
      await c.api.delete(`/v1/dns-records/${rec.id}`);
      return { kind: this.kind, type: this.type, truth: [t(c, "DnsRecordSet set", "update records")], secrets: [] };
    },
  },
  {
    kind: "DnsZone deleted", type: "DnsZone", claims: ["DnsZone spare-zone"], up: true,
    async apply(c) {
      await c.api.delete(`/v1/dns-zones/${id(c, "DnsZone spare-zone")}`);
      return { kind: this.kind, type: this.type, truth: [t(c, "DnsZone spare-zone", "deleted")], secrets: [] };
    },
  },
  {
    kind: "DnsZone verified (platform)", type: "DnsZone", claims: ["DnsZone zone.verify"], silent: "platform",
    async apply(c) {
      await c.api.post(`/v1/dns-zones/${id(c, "DnsZone zone")}/verify`);
      return edit(this.kind, this.type, [], async () => {});
    },
  },
  {
    kind: "DnsZone published (platform)", type: "DnsZone", claims: ["DnsZone spare-zone"], silent: "platform",
    async apply(c) {
      await c.emu.control("POST", "/dns/delegations", { domain: `spare.${c.s.spec.zone}` });
      await c.api.post(`/v1/dns-zones/${id(c, "DnsZone spare-zone")}/verify`).catch(() => {});
      return edit(this.kind, this.type, [], async () => {});
    },
  },
];

// ---- Mail, suppressions ---------------------------------------------------------------------------------
const mail: EditKind[] = [
  {
    kind: "MailDomain verified (platform)", type: "MailDomain", claims: ["MailDomain mail"], silent: "platform",
    async apply(c) {
      await c.api.post(`/v1/workspaces/${ws(c)}/mail/domains/${id(c, "MailDomain mail")}/verify`);
      return edit(this.kind, this.type, [], async () => {});
    },
  },
  {
    kind: "MailDomain deleted", type: "MailDomain", claims: ["MailDomain mail"], up: true,
    async apply(c) {
      await c.api.delete(`/v1/workspaces/${ws(c)}/mail/domains/${id(c, "MailDomain mail")}`);
      return { kind: this.kind, type: this.type, truth: [t(c, "MailDomain mail", "deleted"), t(c, "MailDomainVerification mail", "deleted")], secrets: [] };
    },
  },
  {
    kind: "Suppression deleted", type: "Suppression", claims: ["Suppression bounced"], up: true,
    async apply(c) {
      await c.api.delete(`/v1/suppressions/${encodeURIComponent(c.s.spec.suppression)}`);
      return { kind: this.kind, type: this.type, truth: [t(c, "Suppression bounced", "deleted")], secrets: [] };
    },
  },
];

// ---- Bucket -------------------------------------------------------------------------------------------
type Rule = HarnessStack["spec"]["bucket"]["corsRules"][number];
/** A rule as the CORS route takes it: null fields left out. */
const body = (r: Rule) => Object.fromEntries(Object.entries(r).filter(([, v]) => v != null));
function corsEdit(kind: string, change: (rules: Rule[], n: number) => Rule[], truth: string[], silent?: EditKind["silent"]): EditKind {
  return {
    kind, type: "Bucket", claims: ["Bucket assets.cors"], silent,
    async apply(c, n) {
      const path = `/v1/workspaces/${ws(c)}/buckets/${c.s.spec.bucket.name}/cors`;
      const spec = c.s.spec.bucket.corsRules;
      await c.api.put(path, { rules: change(structuredClone(spec), n).map(body) });
      return edit(this.kind, this.type, truth.map((x) => t(c, "Bucket assets", x)), () => c.api.put(path, { rules: spec.map(body) }).then(() => {}));
    },
  };
}
const bucket: EditKind[] = [
  corsEdit("Bucket.corsRules origin", (r, n) => ((r[0].allowedOrigins = [`https://edited-${n}.example.com`]), r), ["update corsRules[0].allowedOrigins[0]"]),
  corsEdit("Bucket.corsRules maxAgeSeconds", (r, n) => ((r[0].maxAgeSeconds = 1000 + n), r), ["update corsRules[0].maxAgeSeconds"]),
  corsEdit("Bucket.corsRules method added", (r) => ((r[1].allowedMethods = [...r[1].allowedMethods, "POST"]), r), ["create corsRules[1].allowedMethods[1]"]),
  corsEdit("Bucket.corsRules rule added", (r, n) => [...r, { allowedMethods: ["GET"], allowedOrigins: [`https://new-${n}.example.com`], allowedHeaders: null, exposeHeaders: null, maxAgeSeconds: null }], ["create corsRules[2]"]),
  corsEdit("Bucket.corsRules maxAgeSeconds (ignoreChanges)", (r, n) => ((r[1].maxAgeSeconds = 2000 + n), r), [], "ignoreChanges"),
  {
    kind: "Bucket.policy", type: "Bucket", claims: ["Bucket assets.policy"],
    async apply(c, n) {
      const path = `/v1/workspaces/${ws(c)}/buckets/${c.s.spec.bucket.name}/policy`;
      const policy = structuredClone(c.s.spec.bucket.policy) as { Statement: { Resource: string }[] };
      policy.Statement[0].Resource = `${c.s.spec.bucket.name}/edited-${n}/*`;
      await c.api.put(path, { policy: JSON.stringify(policy) });
      return edit(this.kind, this.type, [t(c, "Bucket assets", "update policy")], () => c.api.put(path, { policy: JSON.stringify(c.s.spec.bucket.policy) }).then(() => {}));
    },
  },
];

// ---- Static site, custom domain --------------------------------------------------------------------------
const site: EditKind[] = [
  {
    // A deploy made by a person may serve other content: drift, which `up` repairs (the platform's
    // own redeploys, when a custom domain verifies, are not).
    kind: "StaticSite redeployed by hand", type: "StaticSite", claims: ["StaticSite site"], up: true,
    async apply(c) {
      await c.api.post(`/v1/services/${id(c, "StaticSite site")}/deploys`);
      return { kind: this.kind, type: this.type, truth: [t(c, "StaticSite site", "update contentHash")], secrets: [] };
    },
  },
  {
    kind: "CustomDomain verified (platform)", type: "CustomDomain", claims: ["CustomDomain docs"], silent: "platform",
    async apply(c) {
      await c.api.post(`/v1/custom-domains/${id(c, "CustomDomain docs")}/verify`);
      return edit(this.kind, this.type, [], async () => {});
    },
  },
  {
    kind: "CustomDomain deleted", type: "CustomDomain", claims: ["CustomDomain docs"], up: true,
    async apply(c) {
      await c.api.delete(`/v1/custom-domains/${id(c, "CustomDomain docs")}`);
      return { kind: this.kind, type: this.type, truth: [t(c, "CustomDomain docs", "deleted"), t(c, "CustomDomainVerification docs", "deleted")], secrets: [] };
    },
  },
];

// ---- The platform's clock -----------------------------------------------------------------------------------
const clock: EditKind[] = [
  {
    kind: "clock advanced an hour (platform)", type: "timestamps", claims: ["clock"], silent: "platform",
    async apply(c) {
      await c.emu.control("POST", "/time", { advanceMs: 3_600_000 });
      return edit(this.kind, this.type, [], async () => {});
    },
  },
];

// ---- Unmanaged additions ------------------------------------------------------------------------------------
const unmanaged: EditKind[] = [
  {
    kind: "unmanaged Project", type: "unmanaged Project", claims: ["new project"],
    async apply(c, n) {
      const p = await c.api.create<{ id: string }>(`/v1/workspaces/${ws(c)}/projects`, { name: `hand-${c.s.stack}-${n}-${process.pid}` });
      return edit(this.kind, this.type, [`unmanaged|Project:${p.id}`], () => c.api.delete(`/v1/projects/${p.id}`));
    },
  },
  {
    kind: "unmanaged Environment", type: "unmanaged Environment", claims: ["new environment", "Project app.environments"],
    async apply(c, n) {
      const e = await c.api.create<{ id: string }>(`/v1/projects/${id(c, "Project app")}/environments`, { name: `hand-${n}` });
      return edit(this.kind, this.type, [`unmanaged|Environment:${e.id}`], () => c.api.delete(`/v1/environments/${e.id}`));
    },
  },
  {
    kind: "unmanaged DnsRecord", type: "unmanaged DnsRecord", claims: ["new record"],
    async apply(c, n) {
      const r = await c.api.create<{ id: string }>(`/v1/dns-zones/${id(c, "DnsZone zone")}/records`, { name: `hand-${n}`, type: "TXT", content: `added by hand ${n}` });
      return edit(this.kind, this.type, [`unmanaged|DnsRecord:${r.id}`], () => c.api.delete(`/v1/dns-records/${r.id}`));
    },
  },
  {
    kind: "unmanaged EnvVar", type: "unmanaged EnvVar", claims: ["new env var"],
    async apply(c, n) {
      await c.api.patch(jobVars(c), { envVars: [{ key: "HAND", value: `added-${n}` }] });
      return edit(this.kind, this.type, [`unmanaged|EnvVar:${id(c, "Service job")}/HAND`], () => c.api.delete(`${jobVars(c)}/HAND`));
    },
  },
  {
    kind: "unmanaged Bucket", type: "unmanaged Bucket", claims: ["new bucket"],
    async apply(c, n) {
      const name = `hand-${c.s.stack}-${n}-${process.pid}`;
      await c.api.create(`/v1/workspaces/${ws(c)}/buckets`, { name });
      return edit(this.kind, this.type, [`unmanaged|Bucket:${name}`], () => c.api.delete(`/v1/workspaces/${ws(c)}/buckets/${name}`));
    },
  },
];

/** Every kind, by resource type. */
export const CATALOG: EditKind[] = [...project, ...environment, ...service, ...envVar, ...secretFile, ...dns, ...mail, ...bucket, ...site, ...clock, ...unmanaged];

/** Kinds `up` must restore after (their objects are gone). */
export const needsUp = (k: EditKind) => k.up === true;

/** One round's plan: per stack, a set of kinds sharing no claim, each with its random number. At most one stack gets deletions. */
export function roundPlan(stacks: number): fc.Arbitrary<{ kinds: number[]; n: number }[]> {
  const pick = fc.record({ kinds: fc.shuffledSubarray(CATALOG.map((_, i) => i), { minLength: Math.floor(CATALOG.length / 2) }), n: fc.integer({ min: 1, max: 1_000_000 }) });
  return fc.tuple(fc.array(pick, { minLength: stacks, maxLength: stacks }), fc.integer({ min: -1, max: stacks - 1 })).map(([per, deleter]) =>
    per.map((p, i) => {
      const taken = new Set<string>();
      // The stack that loses objects this round takes its deletions first, so each is drawn.
      const order = i === deleter ? [...p.kinds.filter((k) => needsUp(CATALOG[k])), ...p.kinds.filter((k) => !needsUp(CATALOG[k]))] : p.kinds;
      const kinds = order.filter((k) => {
        const kind = CATALOG[k];
        if (needsUp(kind) && i !== deleter) return false;
        const claims = kind.claims.flatMap((x) => [x, x.split(".")[0]]);
        // A claim of a whole resource conflicts with any claim on one of its properties.
        if (claims.some((x) => taken.has(x)) || kind.claims.some((x) => [...taken].some((y) => y.startsWith(`${x}.`)))) return false;
        for (const x of kind.claims) taken.add(x);
        return true;
      });
      return { kinds, n: p.n };
    }));
}
