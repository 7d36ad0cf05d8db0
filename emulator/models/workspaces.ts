// Workspaces and their members, invites, team roles and API keys (infrastructure routes §2.7,
// §4.10; conventions §5.6-5.7). Invites and the built-in roles are derived from the seeded
// workspace, not stored; API keys are listed as hints only, and only a signed-in session issues or
// revokes them, at most 10 an hour.
import { z } from "zod";
import { type ApiKey, type Area, type Level, type Member, mintToken, type Principal, type User, type Workspace } from "../auth";
import type { Emu } from "../emu";
import { badRequest, forbidden, notFound, tooManyRequests } from "../errors";
import { newId } from "../store";
import { derivedId } from "./dns";

const DAY_MS = 86_400_000;
const users = (emu: Emu) => emu.store.table<User>("users");
const members = (emu: Emu) => emu.store.table<Member>("members");
const keys = (emu: Emu) => emu.store.table<ApiKey>("apiKeys");

// ---- workspaces and members ----
export const workspaceView = (ws: Workspace, role: Member["role"] | null) => ({
  id: ws.id, name: ws.name, defaultRegion: ws.defaultRegion, role, createdAt: ws.createdAt, updatedAt: ws.updatedAt,
});

/** Every workspace, seeded ones first. */
export const allWorkspaces = (emu: Emu): Workspace[] => emu.store.table<Workspace>("workspaces").all();

export function membersOf(emu: Emu, ws: Workspace) {
  return members(emu).where((m) => m.workspaceId === ws.id).map((m) => {
    const u = users(emu).get(m.userId)!;
    return {
      id: m.id,
      user: { id: u.id, email: u.email, firstName: u.firstName, lastName: u.lastName },
      role: m.role,
      teamRoleId: m.readOnly ? ROLE_READ_ONLY : null,
      projectIds: null,
      createdAt: m.createdAt,
    };
  });
}

// ---- team roles: the built-in ones, with how many members hold each ----
const ROLE_READ_ONLY = "role_read_only";
const PERMISSIONS = ["BILLING", "DATABASES", "DEPLOYS", "EMAIL", "STORAGE", "TEAM"] as const;
const BUILTIN_ROLES: { id: string; name: string; description: string; readOnly: boolean; permissions: readonly string[]; holds: (m: Member) => boolean }[] = [
  { id: "role_owner", name: "Owner", description: "Everything, including billing and deleting the workspace", readOnly: false, permissions: PERMISSIONS, holds: (m) => m.role === "OWNER" && !m.readOnly },
  { id: "role_admin", name: "Admin", description: "Everything except deleting the workspace", readOnly: false, permissions: PERMISSIONS, holds: (m) => m.role === "ADMIN" && !m.readOnly },
  { id: "role_member", name: "Member", description: "Builds and runs services, databases, storage and email", readOnly: false, permissions: ["DATABASES", "DEPLOYS", "EMAIL", "STORAGE"], holds: (m) => m.role === "MEMBER" && !m.readOnly },
  { id: ROLE_READ_ONLY, name: "Read only", description: "Sees everything with secret values blanked; changes nothing", readOnly: true, permissions: [], holds: (m) => m.readOnly },
];

export function rolesOf(emu: Emu, ws: Workspace) {
  const all = members(emu).where((m) => m.workspaceId === ws.id);
  return BUILTIN_ROLES.map((r) => ({
    role: {
      id: r.id, teamId: ws.id, name: r.name, description: r.description, builtin: true, editable: false, readOnly: r.readOnly,
      allProjects: true, projectIds: [], permissions: [...r.permissions], createdAt: ws.createdAt, updatedAt: ws.updatedAt,
    },
    memberCount: all.filter(r.holds).length,
    scopedProjectIds: [],
  }));
}

// ---- invites: two pending and one lapsed, per workspace ----
const INVITES = [
  { email: "new.hire@example.test", role: "MEMBER", teamRoleId: null, sentDaysAgo: 1 },
  { email: "ops.lead@example.test", role: "ADMIN", teamRoleId: null, sentDaysAgo: 2 },
  { email: "auditor@example.test", role: "MEMBER", teamRoleId: ROLE_READ_ONLY, sentDaysAgo: 12 },
] as const;
const INVITE_VALID_DAYS = 7;

export function invitesOf(emu: Emu, ws: Workspace) {
  const owner = members(emu).find((m) => m.workspaceId === ws.id && m.role === "OWNER");
  const by = owner ? users(emu).get(owner.userId) : undefined;
  const base = Date.parse(ws.createdAt);
  return INVITES.map((i) => {
    const sent = new Date(base - i.sentDaysAgo * DAY_MS).toISOString();
    const expiresAt = new Date(base + (INVITE_VALID_DAYS - i.sentDaysAgo) * DAY_MS).toISOString();
    return {
      id: derivedId(ws.id, "invite", i.email), teamId: ws.id, email: i.email, role: i.role,
      roleName: BUILTIN_ROLES.find((r) => r.id === (i.teamRoleId ?? `role_${i.role.toLowerCase()}`))!.name,
      teamRoleId: i.teamRoleId, projectIds: null, invitedByName: by ? [by.firstName, by.lastName].filter(Boolean).join(" ") : null,
      expired: expiresAt <= emu.now(), expiresAt, acceptedAt: null, createdAt: sent, updatedAt: sent,
    };
  });
}

// ---- API keys (V1ApiToken): hints only ----
const isPlatformKey = (k: ApiKey) => k.kind === "svc_live" || k.kind === "svc_pat";

/** The workspace's keys and its members' account-wide keys, oldest first. */
export function apiKeysOf(emu: Emu, ws: Workspace): ApiKey[] {
  const people = new Set(members(emu).where((m) => m.workspaceId === ws.id).map((m) => m.userId));
  return keys(emu).where((k) => isPlatformKey(k) && (k.workspaceId === ws.id || (k.workspaceId === null && people.has(k.userId))));
}

export function apiTokenView(k: ApiKey) {
  const prefix = k.token.slice(0, k.token.lastIndexOf("_") + 1);
  return {
    id: k.id, name: k.name, scopes: [...k.scopes], teamId: k.workspaceId,
    tokenHint: k.token.slice(0, prefix.length + 4), tokenTail: k.token.slice(-4),
    createdAt: k.createdAt, expiresAt: k.expiresAt ?? null, lastUsedAt: k.lastUsedAt, revokedAt: k.revokedAt, updatedAt: k.updatedAt,
  };
}

const AREAS = ["EMAIL_SEND", "DEPLOYS", "DATABASES", "PLATFORM_API"] as const;
export const createApiTokenInput = z.object({
  name: z.string().trim().min(1, "must not be empty").max(64, "must be at most 64 characters"),
  scopes: z.array(z.enum(AREAS), { error: `must list areas: ${AREAS.join(", ")}` }).min(1, `must list at least one area: ${AREAS.join(", ")}`),
  teamId: z.string().nullish(),
  expiresAt: z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time" }).nullish(),
});
export const KEYS_PER_HOUR = 10;

function requireSession(who: Principal, operation: string): void {
  if (!who.isSession) throw forbidden(`${operation} needs a signed-in session (POST /v1/auth/login): an API key cannot issue or revoke credentials`);
}

/** Issues a workspace key (or an account-wide one without teamId); its value is returned this once. */
export function createApiToken(emu: Emu, who: Principal, input: z.infer<typeof createApiTokenInput>): { apiToken: ReturnType<typeof apiTokenView>; key: string } {
  requireSession(who, "createApiToken");
  const ws = input.teamId ? who.workspace(input.teamId) : null;
  const now = emu.now();
  if (input.expiresAt && Date.parse(input.expiresAt) <= Date.parse(now)) throw badRequest("expiresAt: must be in the future");
  const hourAgo = new Date(Date.parse(now) - 3_600_000).toISOString();
  const recent = keys(emu).where((k) => k.userId === who.user.id && k.sessionId !== undefined && k.createdAt > hourAgo);
  if (recent.length >= KEYS_PER_HOUR) {
    const oldest = recent.map((k) => Date.parse(k.createdAt)).sort((a, b) => a - b)[0];
    throw tooManyRequests(String(Math.max(1, Math.ceil((oldest + 3_600_000 - Date.parse(now)) / 1000))));
  }
  // A key never exceeds its creator: a read-only member's keys can only read.
  const readOnly = ws ? who.readOnlyIn(ws.id) : who.memberships().every((m) => m.readOnly);
  const level: Level[] = readOnly ? ["READ"] : ["READ", "WRITE"];
  const key = keys(emu).insert({
    id: newId(), name: input.name, kind: "svc_live", token: mintToken("svc_live"), scopes: [...level, ...new Set<Area>(input.scopes)],
    userId: who.user.id, workspaceId: ws?.id ?? null, createdAt: now, updatedAt: now, lastUsedAt: null, revokedAt: null,
    expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null, sessionId: who.key.id,
  });
  return { apiToken: apiTokenView(key), key: key.token };
}

/** Revokes the caller's own key, or any key of a workspace the caller administers. */
export function revokeApiToken(emu: Emu, who: Principal, id: string) {
  requireSession(who, "revokeApiToken");
  const key = keys(emu).get(id);
  const visible = key && isPlatformKey(key) && (key.userId === who.user.id || (key.workspaceId !== null && who.canSee(key.workspaceId)));
  if (!key || !visible) throw notFound("API key", id);
  if (key.userId !== who.user.id) who.requireAdmin(key.workspaceId!);
  if (!key.revokedAt) keys(emu).update(key.id, { revokedAt: emu.now(), updatedAt: emu.now() });
  return apiTokenView(key);
}

/** Keys issued by sessions are user-made: a reset forgets them, as it forgets everything else users made. */
export function forgetSessionKeys(emu: Emu): void {
  for (const k of keys(emu).where((k) => k.sessionId !== undefined)) keys(emu).delete(k.id);
}

/** A workspace by id, or the seeded one (the control API's default). */
export function seededWorkspace(emu: Emu, id: string | undefined): Workspace {
  const seeded = emu.store.table<{ id: string; value: { workspaceId: string } }>("seed").get("seed")?.value.workspaceId;
  const ws = emu.store.table<Workspace>("workspaces").get(id ?? seeded ?? "");
  if (!ws) throw notFound("Workspace", id ?? "(seeded)");
  return ws;
}
