// `--control-token`: an emulator shared beyond loopback answers its control API and the dashboard's
// JSON only to callers holding the token (which routes need it is the gate's table, guard.ts).
// Tools send it as `x-emulator-token: TOKEN` (or `Authorization: Bearer TOKEN`, which no
// /_emulator route takes for an API key); the dashboard signs in once and gets an HttpOnly,
// SameSite=Strict cookie. The API keeps its own key checks.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { PlatformError } from "./errors";
import { parse } from "./http";

export const TOKEN_HEADER = "x-emulator-token";
export const TOKEN_ENV = "CLOUDPLATFORM_EMULATOR_TOKEN";
export const MIN_TOKEN_LENGTH = 16;
const COOKIE = "cloudplatform_emulator";
const UI = "/_emulator/ui";
export const SIGN_IN_PAGE = `${UI}/sign-in.html`;

const digest = (s: string) => createHash("sha256").update(s).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

/** Loopback: the only addresses served without a token. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Refuses to serve beyond loopback without a token, and a token too short to resist guessing. */
export function checkExposure(host: string, token: string | undefined): void {
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new Error(`--control-token must be at least ${MIN_TOKEN_LENGTH} characters (try: openssl rand -hex 32)`);
  }
  if (token === undefined && !isLoopback(host)) {
    throw new Error(
      `--host ${host} serves beyond this machine: anyone who reaches it could read every key and secret through the control API and the dashboard. ` +
      `Give --control-token TOKEN (or set ${TOKEN_ENV}) to require a token, or keep the default 127.0.0.1`,
    );
  }
}

export class ControlToken {
  /** The dashboard's cookie: derived from the token, so the cookie jar never holds the token itself. */
  private readonly session: string;

  constructor(private readonly token: string) {
    this.session = createHmac("sha256", token).update("cloudplatform-emulator dashboard session").digest("base64url");
  }

  matches(given: string): boolean {
    return sameSecret(given, this.token);
  }

  /** Whether the request carries the token (header or bearer) or the dashboard's cookie. */
  holds(req: FastifyRequest): boolean {
    const header = req.headers[TOKEN_HEADER];
    if (typeof header === "string") return this.matches(header);
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
    if (bearer) return this.matches(bearer);
    const cookie = cookieOf(req.headers.cookie, COOKIE);
    return cookie !== undefined && sameSecret(cookie, this.session);
  }

  /** The answer to a request that needs the token and lacks it. */
  refuse(reply: FastifyReply): FastifyReply {
    const e = new PlatformError(401, `This emulator needs its control token: send it as ${TOKEN_HEADER}: TOKEN (or Authorization: Bearer TOKEN); in a browser, sign in at ${SIGN_IN_PAGE}`);
    return reply.code(401).header("www-authenticate", 'Bearer realm="cloudplatform-emulator"').header("cache-control", "no-store").send(e.body());
  }

  cookie(maxAgeSeconds?: number): string {
    const value = maxAgeSeconds === 0 ? "" : this.session;
    return `${COOKIE}=${value}; Path=/_emulator; HttpOnly; SameSite=Strict${maxAgeSeconds === undefined ? "" : `; Max-Age=${maxAgeSeconds}`}`;
  }
}

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const signInBody = z.strictObject({ token: z.string({ error: "is required: the emulator's control token" }).min(1, "must not be empty") });

/** The dashboard's sign-in and sign-out (JSON from its own page: the guard refuses other sites). */
export function controlTokenRoutes(app: FastifyInstance, token: ControlToken): void {
  app.post(`${UI}/sign-in`, async (req, reply) => {
    try {
      const { token: given } = parse(signInBody, req.body);
      if (!token.matches(given)) throw new PlatformError(401, "token: is not this emulator's control token");
    } catch (err) {
      if (err instanceof PlatformError) return reply.code(err.statusCode).header("cache-control", "no-store").send(err.body());
      throw err;
    }
    return reply.code(204).header("set-cookie", token.cookie()).header("cache-control", "no-store").send();
  });
  app.post(`${UI}/sign-out`, async (_req, reply) => reply.code(204).header("set-cookie", token.cookie(0)).send());
}
