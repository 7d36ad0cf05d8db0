// Database connections (infrastructure routes §4.3): a database's connection details, and the
// connection string it links into the apps of its environment as a read-only env var.
import type { Emu } from "../emu";
import { notFound } from "../errors";
import { databasesByEnvironment, envVars, envVarsByLink, isDatabase, type Service, type ServiceType, servicesIn, serviceStatus, slug } from "./lifecycle";
import { envRowId } from "./service-env";

// ---- linked connection strings ----
const APP_TYPES: ServiceType[] = ["WEB", "STATIC", "CRON"];

function link(emu: Emu, db: Service, app: Service): void {
  if (!db.db?.injectConnectionUrl || !APP_TYPES.includes(app.type)) return;
  const key = db.db.connectionEnvName;
  const id = envRowId(app.id, key);
  const existing = envVars(emu).get(id);
  // A key the app set itself wins: links never overwrite a user's value.
  if (existing && existing.linkedFrom !== db.id) return;
  envVars(emu).insert({ id, serviceId: app.id, key, value: connection(db).url, scope: "ALL", secret: true, linkedFrom: db.id });
}

/** The database's address changed (its real listener opened): its links follow. */
export function relink(emu: Emu, db: Service): void {
  const url = connection(db).url;
  for (const v of envVarsByLink(emu).list(db.id)) if (v.value !== url) envVars(emu).update(v.id, { value: url });
}

/** A new app gets the links of the environment's databases. */
export function linkInto(emu: Emu, app: Service): void {
  for (const db of databasesByEnvironment(emu).list(app.environmentId)) if (db.id !== app.id) link(emu, db, app);
}

/** A new database links into the apps already there. */
export function linkFrom(emu: Emu, db: Service): void {
  for (const app of servicesIn(emu, db.environmentId)) if (app.id !== db.id) link(emu, db, app);
}

// ---- connection ----
const ENGINES: Record<string, { scheme: string; port: number }> = {
  POSTGRES: { scheme: "postgresql", port: 5432 },
  MYSQL: { scheme: "mysql", port: 3306 },
  MARIADB: { scheme: "mariadb", port: 3306 },
  MONGODB: { scheme: "mongodb", port: 27017 },
  REDIS: { scheme: "redis", port: 6379 },
  VALKEY: { scheme: "redis", port: 6379 },
};

export function connection(svc: Service) {
  const engine = ENGINES[svc.type];
  const db = svc.db!;
  // A POSTGRES service has a real listener on loopback; other engines get a placeholder address.
  const host = db.endpoint?.host ?? `${slug(svc.name)}-${svc.id.slice(0, 8)}.internal`;
  const port = db.endpoint?.port ?? engine.port;
  const auth = `${encodeURIComponent(db.user)}:${encodeURIComponent(db.password)}`;
  return {
    scheme: engine.scheme,
    host,
    port,
    database: db.name,
    username: db.user,
    password: db.password,
    url: `${engine.scheme}://${auth}@${host}:${port}/${db.name}`,
    externalUrl: null as string | null,
  };
}

/** 404 unless a provisioned database; the password is empty for a read-only role. */
export function connectionView(emu: Emu, svc: Service, blank: boolean) {
  if (!isDatabase(svc.type) || !svc.db) throw notFound("Connection for service", svc.id);
  if (serviceStatus(emu, svc) === "PROVISIONING") {
    throw notFound("Connection for service", `${svc.id} (still provisioning)`);
  }
  const c = connection(svc);
  if (!blank) return c;
  return { ...c, password: "", url: c.url.replace(/:[^:@/]*@/, ":@") };
}

