// Crash- and fault-recovery scenarios: `projects` (N projects), `mixed` (5 per group of
// project, environment, service, env var and secret file, plus a zone with 4 records and sets), `service` (one service whose deploy wait can be interrupted), `bad-schedule`
// (a rule broken under a parent not created yet) and `suppression` (one the program may drop).
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
const mode = config.require("mode");
const tag = config.get("tag") ?? "t";

if (mode === "projects") {
  const n = config.getNumber("count") ?? 1;
  for (let i = 0; i < n; i++) new cloud.Project(`p${i}`, { name: `${tag}-${i}` });
}

if (mode === "mixed") {
  const groups = config.getNumber("groups") ?? 2;
  for (let i = 0; i < groups; i++) {
    const project = new cloud.Project(`p${i}`, { name: `${tag}-${i}` });
    const env = new cloud.Environment(`env${i}`, { projectId: project.id, name: "production" });
    const web = new cloud.Service(`web${i}`, {
      environmentId: env.id, name: "web", type: "WEB", image: "nginx:1.27",
      envVars: [{ key: "MODE", value: "production" }], timeout: "2m",
    });
    new cloud.EnvVar(`flag${i}`, { serviceId: web.id, key: "FLAG", value: "on" });
    new cloud.SecretFile(`file${i}`, { serviceId: web.id, path: "/etc/app.json", content: config.requireSecret("fileContent") });
  }
  const zone = new cloud.DnsZone("zone", { name: `${tag}.example.com` });
  new cloud.DnsRecord("www", { zoneId: zone.id, name: "www", type: "A", content: "203.0.113.10" });
  new cloud.DnsRecord("api", { zoneId: zone.id, name: "api", type: "CNAME", content: "www" });
  new cloud.DnsRecord("txt", { zoneId: zone.id, name: "@", type: "TXT", content: "hello" });
  new cloud.DnsRecordSet("mx", { zoneId: zone.id, records: [
    { name: "@", type: "MX", content: "mx1.example.net", priority: 10 },
    { name: "@", type: "MX", content: "mx2.example.net", priority: 20 },
  ] });
}

if (mode === "bad-schedule") {
  // A rule that spans properties, under a parent whose id is unknown at preview.
  const project = new cloud.Project("app", { name: `${tag}-bad` });
  const env = new cloud.Environment("production", { projectId: project.id, name: "production" });
  new cloud.Service("web", { environmentId: env.id, name: "web", type: "WEB", image: "nginx:1.27", schedule: "@daily" });
}

if (mode === "service") {
  const project = new cloud.Project("app", { name: `${tag}-svc` });
  const env = new cloud.Environment("production", { projectId: project.id, name: "production" });
  new cloud.Service("web", { environmentId: env.id, name: "web", type: "WEB", image: "nginx:1.27", timeout: config.get("timeout") ?? "5m" });
}

if (mode === "suppression") {
  // A suppression the program may stop declaring, with or without retainOnDelete.
  if (config.getBoolean("keep") ?? true) {
    new cloud.Suppression("angry", { address: config.require("address") }, { retainOnDelete: config.getBoolean("retain") ?? false });
  }
}
