// Credentials and scopes (conventions §5): bearer keys with a kind prefix, an access level plus areas,
// member roles, and keys pinned to the workspace they were created in.
import { randomBytes, randomUUID, scryptSync, timingSafeEqual } from "node:crypto";
import type { Store } from "./store";
import { forbidden, notFound, unauthorized } from "./errors";

export type Level = "READ" | "WRITE";
export type Area = "EMAIL_SEND" | "DEPLOYS" | "DATABASES" | "PLATFORM_API";
export type KeyKind = "svc_live" | "svc_pat" | "mail_live" | "mail_test" | "session";
export type Role = "OWNER" | "ADMIN" | "MEMBER";

export interface User {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  emailVerifiedAt: string | null;
  createdAt: string;
  /** `salt:hash` (scrypt) of the sign-in password; never leaves the emulator. */
  passwordHash?: string;
}
export interface Workspace {
  id: string;
  name: string;
  defaultRegion: string | null;
  createdAt: string;
  updatedAt: string;
}
export interface Member {
  id: string;
  workspaceId: string;
  userId: string;
  role: Role;
  /** A read-only team role: secret values are blanked for it (§5.8). */
  readOnly: boolean;
  createdAt: string;
}
export interface ApiKey {
  id: string;
  name: string;
  kind: KeyKind;
  token: string;
  scopes: (Level | Area)[];
  userId: string;
  /** Set when the key was created from a workspace's settings: it reaches only that workspace. */
  workspaceId: string | null;
  createdAt: string;
  updatedAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** After this time the key is refused (keys issued with an expiry). */
  expiresAt?: string | null;
  /** The signed-in session that issued the key (createApiToken); unset for seeded keys. */
  sessionId?: string;
}

/** A signed-in person's session (POST /v1/auth/login): a bearer token that acts as the user. */
export interface Session {
  id: string;
  token: string;
  userId: string;
  createdAt: string;
  expiresAt: string;
}

/** What a route demands: an access level and one or more areas, and maybe the ADMIN role. */
export interface ScopeRule {
  level: Level;
  areas: Area[];
  /** The route changes mail configuration: sandbox keys are refused (§4.3 rule 5). */
  mailConfig?: boolean;
  /** Any one of `areas` suffices (static uploads and deploys: DEPLOYS or PLATFORM_API, §5.4). */
  anyArea?: boolean;
  /** The route sends email: a platform token is refused whatever its scopes (§5.2). */
  send?: boolean;
}

export const SCOPES = {
  Rp: { level: "READ", areas: ["PLATFORM_API"] },
  Wp: { level: "WRITE", areas: ["PLATFORM_API"] },
  Rd: { level: "READ", areas: ["DEPLOYS"] },
  Wd: { level: "WRITE", areas: ["DEPLOYS"] },
  Rdb: { level: "READ", areas: ["DATABASES"] },
  Wdb: { level: "WRITE", areas: ["DATABASES"] },
  Re: { level: "READ", areas: ["EMAIL_SEND"] },
  We: { level: "WRITE", areas: ["EMAIL_SEND"], mailConfig: true },
  /** The short mail-domain and suppression routes need both areas together (§4.8). */
  Rep: { level: "READ", areas: ["EMAIL_SEND", "PLATFORM_API"] },
  Wep: { level: "WRITE", areas: ["EMAIL_SEND", "PLATFORM_API"], mailConfig: true },
  /** Uploading to an existing static site: DEPLOYS (conventions §5.4) or PLATFORM_API (the route table). */
  Wdp: { level: "WRITE", areas: ["DEPLOYS", "PLATFORM_API"], anyArea: true },
  /** Sending email (§4.3, §4.4): any key kind with the send scope, sandbox keys included. */
  Se: { level: "WRITE", areas: ["EMAIL_SEND"], send: true },
} satisfies Record<string, ScopeRule>;
export type ScopeName = keyof typeof SCOPES;

/** Each key kind's token prefix (the request log tells a credential's kind by it). */
export const TOKEN_PREFIX: Record<KeyKind, string> = {
  svc_live: "svc_live_",
  svc_pat: "svc_pat_",
  mail_live: "mail_live_",
  mail_test: "mail_test_",
  session: "sess_",
};

const base62 = (n: number): string => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = randomBytes(n);
  let out = "";
  for (const b of bytes) out += alphabet[b % 62];
  return out;
};

export function mintToken(kind: KeyKind): string {
  return TOKEN_PREFIX[kind] + base62(40);
}

export class Principal {
  constructor(
    readonly key: ApiKey,
    readonly user: User,
    private readonly store: Store,
  ) {}

  /** A signed-in person rather than a key: only a session may issue or revoke credentials (§5.6). */
  get isSession(): boolean {
    return this.key.kind === "session";
  }

  get isSandbox(): boolean {
    return this.key.kind === "mail_test";
  }

  /** Workspaces the key reaches: the owner's memberships, narrowed to the key's own workspace. */
  memberships(): Member[] {
    return this.store
      .table<Member>("members")
      .index("user", { group: (m) => m.userId })
      .list(this.user.id)
      .filter((m) => !this.key.workspaceId || m.workspaceId === this.key.workspaceId);
  }

  membership(workspaceId: string): Member | undefined {
    return this.memberships().find((m) => m.workspaceId === workspaceId);
  }

  /** The workspace, or 404 exactly as for a missing one (§4.5: other workspaces are invisible). */
  workspace(workspaceId: string): Workspace {
    const ws = this.store.table<Workspace>("workspaces").get(workspaceId);
    if (!ws || !this.membership(workspaceId)) throw notFound("Workspace", workspaceId);
    return ws;
  }

  canSee(workspaceId: string): boolean {
    return !!this.membership(workspaceId);
  }

  requireAdmin(workspaceId: string): void {
    const m = this.membership(workspaceId);
    if (!m || (m.role !== "OWNER" && m.role !== "ADMIN") || m.readOnly) {
      throw forbidden("This route needs the member role ADMIN (or OWNER) in the workspace");
    }
  }

  /** Secret values are blanked for a read-only role (§5.8). */
  readOnlyIn(workspaceId: string): boolean {
    return this.membership(workspaceId)?.readOnly ?? true;
  }
}

/** Resolves the caller from the Authorization header and enforces the route's scope rule. */
export function authenticate(
  store: Store,
  headers: Record<string, string | string[] | undefined>,
  rule: ScopeRule,
  nowIso: string,
): Principal {
  const auth = headers["authorization"];
  const value = Array.isArray(auth) ? auth[0] : auth;
  if (!value) {
    if (headers["cookie"]) {
      throw unauthorized("API keys are accepted only as a bearer token in the Authorization header; cookies are refused");
    }
    throw unauthorized("Missing API key: send Authorization: Bearer <API_KEY>");
  }
  const m = /^Bearer\s+(\S+)$/i.exec(value);
  if (!m) throw unauthorized("Malformed Authorization header: expected 'Bearer <API_KEY>'");
  const token = m[1];
  const key = store.table<ApiKey>("apiKeys").index("token", { group: (k) => k.token }).list(token)[0] ?? sessionKey(store, token, nowIso);
  if (!key || key.revokedAt) throw unauthorized("Invalid or revoked API key");
  if (key.expiresAt && key.expiresAt <= nowIso) throw unauthorized("The API key has expired");
  const user = store.table<User>("users").get(key.userId);
  if (!user) throw unauthorized("Invalid or revoked API key");

  if (rule.send && key.kind === "svc_pat") {
    throw forbidden("A platform token (svc_pat_) is refused for sending: it predates the email scope. Send with a workspace key (svc_live_) or a mail key (mail_live_, mail_test_) that has EMAIL_SEND");
  }
  const isMailKey = key.kind === "mail_live" || key.kind === "mail_test";
  if (isMailKey && !rule.areas.includes("EMAIL_SEND")) {
    throw forbidden(`A ${key.kind === "mail_test" ? "sandbox mail" : "mail"} key reaches only the email REST API; this route needs ${[rule.level, ...rule.areas].join(" + ")}`);
  }
  if (key.kind === "mail_test" && rule.mailConfig) {
    throw forbidden("A sandbox key can read domains and suppressions but cannot change them");
  }
  // A sandbox key reads domains and suppressions with its email scope alone (§4.3 rule 5).
  const needed = key.kind === "mail_test" ? [rule.level, "EMAIL_SEND"]
    : rule.anyArea ? [rule.level, rule.areas.join(" or ")] : [rule.level, ...rule.areas];
  const has = (s: string) => s.split(" or ").some((one) => key.scopes.includes(one as Level | Area));
  const missing = needed.filter((s) => !has(s));
  if (missing.length > 0) {
    throw forbidden(`Missing scope${missing.length > 1 ? "s" : ""} ${missing.join(", ")}: this route needs ${needed.join(" + ")}`);
  }
  key.lastUsedAt = nowIso;
  return new Principal(key, user, store);
}

const ALL_SCOPES: (Level | Area)[] = ["READ", "WRITE", "EMAIL_SEND", "DEPLOYS", "DATABASES", "PLATFORM_API"];

/** A session acts as its user with every scope, in every workspace the user belongs to. */
function sessionKey(store: Store, token: string, nowIso: string): ApiKey | undefined {
  if (!token.startsWith(TOKEN_PREFIX.session)) return undefined;
  const s = store.table<Session>("sessions").index("token", { group: (x) => x.token }).list(token)[0];
  if (!s) return undefined;
  if (s.expiresAt <= nowIso) throw unauthorized("The session has expired; sign in again");
  return {
    id: s.id, name: "session", kind: "session", token, scopes: ALL_SCOPES, userId: s.userId, workspaceId: null,
    createdAt: s.createdAt, updatedAt: s.createdAt, lastUsedAt: null, revokedAt: null,
  };
}

export function hashPassword(password: string): string {
  const salt = randomBytes(16).toString("hex");
  // A low scrypt cost: the emulator seeds users at every start.
  return `${salt}:${scryptSync(password, salt, 32, { N: 1024 }).toString("hex")}`;
}

export function checkPassword(user: User, password: string): boolean {
  if (!user.passwordHash) return false;
  const [salt, hash] = user.passwordHash.split(":");
  const got = scryptSync(password, salt, 32, { N: 1024 });
  return timingSafeEqual(got, Buffer.from(hash, "hex"));
}

/** Every seeded person signs in with this password (printed as `login` by the CLI). */
export const SEED_PASSWORD = "emulator-password";
let seedHash: string | undefined;
/** The seeded password's hash, made once per process: a published password, hashed at every start, was half of a start's CPU. */
const seedPasswordHash = () => (seedHash ??= hashPassword(SEED_PASSWORD));

export interface SeedResult {
  workspaceId: string;
  otherWorkspaceId: string;
  apiKey: string;
  keys: Record<string, string>;
  /** A seeded person's sign-in (POST /v1/auth/login): the owner of `workspaceId`. */
  login: { email: string; password: string };
}

/** Seeds a user with a workspace, colleagues with narrower roles, a stranger's workspace, and one key of each kind. */
export function seed(store: Store, nowIso: string, defaultRegion: string): SeedResult {
  const users = store.table<User>("users");
  const workspaces = store.table<Workspace>("workspaces");
  const members = store.table<Member>("members");
  const keys = store.table<ApiKey>("apiKeys");
  const mkUser = (email: string, firstName: string) =>
    users.insert({ id: randomUUID(), email, firstName, lastName: null, emailVerifiedAt: nowIso, createdAt: nowIso, passwordHash: seedPasswordHash() });
  const mkWs = (name: string) =>
    workspaces.insert({ id: randomUUID(), name, defaultRegion, createdAt: nowIso, updatedAt: nowIso });
  const mkMember = (ws: Workspace, user: User, role: Role, readOnly = false) =>
    members.insert({ id: randomUUID(), workspaceId: ws.id, userId: user.id, role, readOnly, createdAt: nowIso });
  const all = ALL_SCOPES;
  const mkKey = (name: string, kind: KeyKind, user: User, ws: Workspace | null, scopes: (Level | Area)[]) =>
    keys.insert({
      id: randomUUID(), name, kind, token: mintToken(kind), scopes, userId: user.id, workspaceId: ws?.id ?? null,
      createdAt: nowIso, updatedAt: nowIso, lastUsedAt: null, revokedAt: null,
    }).token;

  const owner = mkUser("owner@example.test", "Ada");
  const viewer = mkUser("viewer@example.test", "Vic");
  const dev = mkUser("dev@example.test", "Dev");
  const stranger = mkUser("stranger@example.test", "Sam");
  const main = mkWs("Acme");
  const staging = mkWs("Acme Staging");
  const other = mkWs("Globex");
  mkMember(main, owner, "OWNER");
  mkMember(staging, owner, "OWNER");
  mkMember(main, viewer, "MEMBER", true);
  mkMember(main, dev, "MEMBER");
  mkMember(other, stranger, "OWNER");

  const apiKey = mkKey("emulator full access", "svc_live", owner, main, all);
  const result: SeedResult = {
    workspaceId: main.id,
    otherWorkspaceId: other.id,
    apiKey,
    login: { email: owner.email, password: SEED_PASSWORD },
    keys: {
      full: apiKey,
      account: mkKey("account key (all workspaces)", "svc_live", owner, null, all),
      readOnly: mkKey("read only", "svc_live", viewer, main, ["READ", "EMAIL_SEND", "DEPLOYS", "DATABASES", "PLATFORM_API"]),
      member: mkKey("member (not admin)", "svc_live", dev, main, all),
      platformOnly: mkKey("platform only", "svc_live", owner, main, ["READ", "WRITE", "PLATFORM_API"]),
      sendOnly: mkKey("send only", "svc_live", owner, main, ["READ", "WRITE", "EMAIL_SEND"]),
      deploysOnly: mkKey("deploys only", "svc_live", owner, main, ["READ", "WRITE", "DEPLOYS"]),
      readPlatform: mkKey("read platform", "svc_live", owner, main, ["READ", "PLATFORM_API"]),
      mail: mkKey("mail key", "mail_live", owner, main, ["READ", "WRITE", "EMAIL_SEND"]),
      sandbox: mkKey("sandbox mail key", "mail_test", owner, main, ["READ", "WRITE", "EMAIL_SEND"]),
      pat: mkKey("platform token", "svc_pat", owner, null, ["READ", "WRITE", "DEPLOYS", "DATABASES", "PLATFORM_API"]),
      otherWorkspace: mkKey("another workspace's key", "svc_live", stranger, other, all),
    },
  };
  store.table<{ id: string; value: SeedResult }>("seed").insert({ id: "seed", value: result });
  return result;
}
