// Session sign-in (conventions §5 "Session sign-in", §8): an email and password give a session
// token usable as a bearer token, acting as that person. Seeded people have no two-factor, so
// `twoFactor` is always null. Sign-ins are throttled to 10 a minute per address.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { checkPassword, mintToken, type Session, type User } from "../auth";
import type { Emu } from "../emu";
import { tooManyRequests, unauthorized } from "../errors";
import { IdleMap } from "../idle-map";

export const loginBody = z.object({
  email: z.email({ error: "must be an email address" }),
  password: z.string({ error: "must be a string" }).min(1, "must not be empty"),
});

export const SESSION_HOURS = 12;
const LOGINS_PER_MINUTE = 10;
const WINDOW_MS = 60_000;
/** Addresses tracked at once: any address may be tried, so the map forgets idle ones and has a cap. */
export const MAX_LOGIN_ADDRESSES = 10_000;
const attempts = new WeakMap<Emu, IdleMap<number[]>>();

/** Addresses whose recent sign-in attempts are kept (at most MAX_LOGIN_ADDRESSES). */
export const loginAddressesTracked = (emu: Emu) => attempts.get(emu)?.size ?? 0;

export const meView = (u: User) => ({
  id: u.id, email: u.email, firstName: u.firstName, lastName: u.lastName, emailVerifiedAt: u.emailVerifiedAt, createdAt: u.createdAt,
});

export function login(emu: Emu, input: z.infer<typeof loginBody>) {
  const email = input.email.trim().toLowerCase();
  const now = emu.clock.now();
  const byEmail = attempts.get(emu) ?? new IdleMap<number[]>(MAX_LOGIN_ADDRESSES, () => WINDOW_MS);
  attempts.set(emu, byEmail);
  const tries = byEmail.use(email, now, () => []);
  const recent = tries.filter((t) => t > now - WINDOW_MS);
  tries.splice(0, tries.length, ...recent);
  if (recent.length >= LOGINS_PER_MINUTE) throw tooManyRequests(String(Math.max(1, Math.ceil((recent[0] + WINDOW_MS - now) / 1000))));
  tries.push(now);

  const user = emu.store.table<User>("users").find((u) => u.email.toLowerCase() === email);
  // One message for both, so the route does not reveal which addresses have accounts.
  if (!user || !checkPassword(user, input.password)) throw unauthorized("Wrong email or password");
  const session = emu.store.table<Session>("sessions").insert({
    id: randomUUID(), token: mintToken("session"), userId: user.id, createdAt: emu.now(),
    expiresAt: new Date(now + SESSION_HOURS * 3_600_000).toISOString(),
  });
  return { accessToken: session.token, user: meView(user), twoFactor: null };
}
