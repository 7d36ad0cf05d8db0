// A small sign-up service: POST /signup stores the address in Postgres and mails a confirmation
// link; GET /confirm?token= confirms it; PUT /avatars/<id> keeps a picture in a bucket. It knows
// nothing of tests: it takes its database URL, mail settings and S3 client as any deployment would.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Client as PgClient } from "pg";
import { PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";

export interface AppConfig {
  /** A connected Postgres client (the platform links DATABASE_URL into the service). */
  db: PgClient;
  mail: { baseUrl: string; apiKey: string; from: string };
  s3: S3Client;
  bucket: string;
  /** Where the app is reached; confirmation links start with it. */
  publicUrl: string;
}

const MAX_BODY = 1024 * 1024;

export async function migrate(db: PgClient): Promise<void> {
  await db.query(`CREATE TABLE IF NOT EXISTS signups (
    id SERIAL PRIMARY KEY, email TEXT UNIQUE NOT NULL, token TEXT NOT NULL, confirmed BOOLEAN NOT NULL DEFAULT false)`);
}

export function createApp(cfg: AppConfig): Server {
  return createServer((req, res) => {
    handle(cfg, req).then(
      ({ status, body }) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body)),
      (err: Error) => res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: err.message })),
    );
  });
}

async function handle(cfg: AppConfig, req: IncomingMessage): Promise<{ status: number; body: unknown }> {
  const url = new URL(req.url ?? "/", "http://app");
  if (req.method === "POST" && url.pathname === "/signup") {
    const { email } = JSON.parse((await readBody(req)).toString("utf8") || "{}") as { email?: unknown };
    if (typeof email !== "string" || !/^[^@\s]+@[^@\s]+$/.test(email)) return { status: 400, body: { error: "email: must be an address" } };
    const token = randomBytes(16).toString("hex");
    const row = await cfg.db.query("INSERT INTO signups (email, token) VALUES ($1, $2) ON CONFLICT (email) DO NOTHING RETURNING id", [email, token]);
    if (row.rowCount === 0) return { status: 409, body: { error: "email: already signed up" } };
    await sendConfirmation(cfg, email, `${cfg.publicUrl}/confirm?token=${token}`);
    return { status: 202, body: { id: row.rows[0].id } };
  }
  if (req.method === "GET" && url.pathname === "/confirm") {
    const done = await cfg.db.query("UPDATE signups SET confirmed = true WHERE token = $1 RETURNING email", [url.searchParams.get("token") ?? ""]);
    return done.rowCount ? { status: 200, body: { confirmed: done.rows[0].email } } : { status: 404, body: { error: "token: unknown" } };
  }
  const avatar = /^\/avatars\/(\d+)$/.exec(url.pathname);
  if (req.method === "PUT" && avatar) {
    const body = await readBody(req);
    await cfg.s3.send(new PutObjectCommand({ Bucket: cfg.bucket, Key: `avatars/${avatar[1]}.png`, Body: body, ContentType: "image/png" }));
    return { status: 201, body: { key: `avatars/${avatar[1]}.png` } };
  }
  return { status: 404, body: { error: "not found" } };
}

async function sendConfirmation(cfg: AppConfig, to: string, link: string): Promise<void> {
  const res = await fetch(`${cfg.mail.baseUrl.replace(/\/+$/, "")}/v1/emails`, {
    method: "POST",
    headers: { authorization: `Bearer ${cfg.mail.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      from: cfg.mail.from,
      to,
      subject: "Confirm your sign-up",
      html: `<p>Welcome! <a href="${link.replace(/&/g, "&amp;")}">Confirm your address</a>.</p><p><a href="${cfg.publicUrl}/help">Help</a></p>`,
      text: `Welcome! Confirm your address: ${link}`,
    }),
  });
  if (res.status !== 202) throw new Error(`sending the confirmation failed: ${res.status} ${await res.text()}`);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error("body: larger than 1 MiB");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
