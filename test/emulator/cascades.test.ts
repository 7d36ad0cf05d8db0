// Cascades hold without HTTP: the model functions alone, on an emulator no server was built for,
// take with a deleted project, environment, service or zone everything that hangs on it.
import { seed } from "../../emulator/auth";
import type { Workspace } from "../../emulator/auth";
import { Emu } from "../../emulator/emu";
import { DEFAULT_REGION } from "../../emulator/models/catalogue";
import { closePreview, deleteProject, deleteService, deleteZone, setPreviewsEnabled } from "../../emulator/models/cascades";
import { addCustomDomain } from "../../emulator/models/custom-domains";
import { createRecord, createZone } from "../../emulator/models/dns";
import { openPreview } from "../../emulator/models/previews";
import { createEnvironment, createProject } from "../../emulator/models/projects";
import { envVars } from "../../emulator/models/lifecycle";
import { createService } from "../../emulator/models/services";
import { Store } from "../../emulator/store";

function emulator() {
  const store = new Store();
  const emu = new Emu(store, { defaultRegion: DEFAULT_REGION, dnsPropagationMs: 0, speed: 0, delegations: [] });
  const ids = seed(store, emu.now(), DEFAULT_REGION);
  const ws = store.table<Workspace>("workspaces").get(ids.workspaceId)!;
  return { emu, ws, count: (table: string) => store.counts()[table] ?? 0 };
}

/** A project with a database linked into a web app that has env vars, a secret file, a custom domain and an open preview. */
function shop(emu: Emu, ws: Workspace) {
  const project = createProject(emu, ws, { name: "shop" });
  const env = createEnvironment(emu, project, { name: "production" });
  const db = createService(emu, env, project, { name: "db", type: "POSTGRES", injectConnectionUrl: true });
  const web = createService(emu, env, project, {
    name: "web", type: "WEB", gitUrl: "https://github.com/acme/shop-app",
    envVars: [{ key: "MODE", value: "live" }], secretFiles: [{ path: "keys/api.pem", content: "not a real key" }],
  });
  addCustomDomain(emu, web, { domain: "www.shop.example" });
  setPreviewsEnabled(emu, web, true);
  const preview = openPreview(emu, { serviceId: web.id, prNumber: 7, headRef: "feature" });
  return { project, env, db, web, preview };
}

test("deleting a project takes its environments, services and everything on them", () => {
  const { emu, ws, count } = emulator();
  const { project } = shop(emu, ws);
  // The preview copy is a second environment with a service of its own.
  expect(count("environments")).toBe(2);
  expect(count("services")).toBe(3);
  expect(count("serviceEnvVars")).toBeGreaterThanOrEqual(2); // MODE and the linked DATABASE_URL
  expect(count("customDomains")).toBe(1);
  expect(count("deploys")).toBeGreaterThan(0);

  deleteProject(emu, project);

  for (const table of ["projects", "environments", "services", "serviceEnvVars", "serviceSecretFiles", "customDomains", "previews", "deploys"]) {
    expect([table, count(table)]).toEqual([table, 0]);
  }
});

test("deleting a database takes the connection string it linked into the app, and leaves the app's own variables", () => {
  const { emu, ws } = emulator();
  const { db, web } = shop(emu, ws);
  const vars = () => envVars(emu).where((v) => v.serviceId === web.id).map((v) => v.key).sort();
  expect(vars()).toEqual(["DATABASE_URL", "MODE"]);
  deleteService(emu, db);
  expect(vars()).toEqual(["MODE"]);
});

test("closing a preview tears its environment down and keeps the record, closed", () => {
  const { emu, ws, count } = emulator();
  const { preview } = shop(emu, ws);
  expect(preview.environmentId).toBeTruthy();
  const closed = closePreview(emu, preview);
  expect(closed.closedAt).not.toBeNull();
  expect(count("environments")).toBe(1);
  expect(count("services")).toBe(2);
  expect(count("previews")).toBe(1);
});

test("deleting a zone takes its records", () => {
  const { emu, ws, count } = emulator();
  const zone = createZone(emu, ws, { name: "shop.example" });
  createRecord(emu, zone, { name: "www", type: "A", content: "192.0.2.10" });
  expect(count("dnsRecords")).toBeGreaterThan(0);
  deleteZone(emu, zone);
  expect(count("dnsZones")).toBe(0);
  expect(count("dnsRecords")).toBe(0);
});
