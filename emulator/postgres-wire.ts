// The few parts of the Postgres wire protocol (version 3) the service listeners speak themselves:
// reading the startup and the frontend's password, refusing a login, and signing in upstream
// (SCRAM-SHA-256, md5 or cleartext, whichever the upstream server asks for).
import { createHash, createHmac, pbkdf2, randomBytes, timingSafeEqual } from "node:crypto";
import type net from "node:net";

export const SSL_REQUEST = 80877103;
export const GSS_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;
export const PROTOCOL_3 = 196608;
/** Postgres' own limit on a startup packet. */
const MAX_STARTUP = 10_000;

/** Bytes received but not yet consumed, read one message at a time. */
export class Reader {
  private buf: Buffer = Buffer.alloc(0);
  push(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
  }
  /** The startup-phase packet (length first, no type byte), whole, or null until it is. */
  packet(): Buffer | null {
    if (this.buf.length >= 4 && (this.buf.readInt32BE(0) < 8 || this.buf.readInt32BE(0) > MAX_STARTUP)) throw new Error("invalid startup packet length");
    if (this.buf.length < 8 || this.buf.length < this.buf.readInt32BE(0)) return null;
    const len = this.buf.readInt32BE(0);
    const out = this.buf.subarray(0, len);
    this.buf = this.buf.subarray(len);
    return out;
  }
  /** A typed message before login (the password): its type byte and body, or null until it is whole. */
  message(): { type: number; body: Buffer } | null {
    if (this.buf.length >= 5 && (this.buf.readInt32BE(1) < 4 || this.buf.readInt32BE(1) > MAX_STARTUP)) throw new Error("invalid message length");
    if (this.buf.length < 5 || this.buf.length < 1 + this.buf.readInt32BE(1)) return null;
    const len = this.buf.readInt32BE(1);
    const out = { type: this.buf[0], body: this.buf.subarray(5, 1 + len) };
    this.buf = this.buf.subarray(1 + len);
    return out;
  }
  rest(): Buffer {
    const out = this.buf;
    this.buf = Buffer.alloc(0);
    return out;
  }
}

export function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head[0] = type.charCodeAt(0);
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const cstr = (s: string) => Buffer.from(`${s}\0`, "utf8");

export function startupParams(packet: Buffer): Record<string, string> {
  const parts = packet.subarray(8).toString("utf8").split("\0");
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < parts.length && parts[i] !== ""; i += 2) out[parts[i]] = parts[i + 1];
  return out;
}

export function startupPacket(params: Record<string, string>): Buffer {
  const body = Buffer.concat([...Object.entries(params).flatMap(([k, v]) => [cstr(k), cstr(v)]), Buffer.from([0])]);
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(PROTOCOL_3, 4);
  return Buffer.concat([head, body]);
}

export const AUTH_OK = message("R", Buffer.from([0, 0, 0, 0]));

export function md5Challenge(salt: Buffer): Buffer {
  return message("R", Buffer.concat([Buffer.from([0, 0, 0, 5]), salt]));
}

export function md5Password(user: string, password: string, salt: Buffer): string {
  const inner = createHash("md5").update(password + user).digest("hex");
  return "md5" + createHash("md5").update(inner).update(salt).digest("hex");
}

/** The password a PasswordMessage carries matches the md5 answer expected for this salt. */
export function md5Matches(body: Buffer, user: string, password: string, salt: Buffer): boolean {
  const got = Buffer.from(body.subarray(0, Math.max(0, body.indexOf(0))));
  const want = Buffer.from(md5Password(user, password, salt));
  return got.length === want.length && timingSafeEqual(got, want);
}

/** An ErrorResponse at FATAL, then the connection closes (as a server refusing a login does). */
export function fatal(client: net.Socket, code: string, text: string): void {
  client.end(message("E", Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${text}\0\0`, "utf8")));
}

/** The fields of an ErrorResponse (`M` message, `C` code, ...). */
export function errorFields(body: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of body.toString("utf8").split("\0")) if (f) out[f[0]] = f.slice(1);
  return out;
}

// ---- SCRAM-SHA-256 (RFC 5802, RFC 7677) ----
const hmac = (key: Buffer, data: string | Buffer) => createHmac("sha256", key).update(data).digest();
const sha256 = (data: Buffer) => createHash("sha256").update(data).digest();
const salted = new Map<string, Promise<Buffer>>();

function saltedPassword(password: string, salt: Buffer, iterations: number): Promise<Buffer> {
  // Derived on libuv's thread pool, and once per role: the iterations are what makes SCRAM slow.
  const key = `${iterations}:${salt.toString("base64")}:${createHash("sha256").update(password).digest("hex")}`;
  let p = salted.get(key);
  if (!p) {
    p = new Promise((resolve, reject) => pbkdf2(password, salt, iterations, 32, "sha256", (e, k) => (e ? reject(e) : resolve(k))));
    salted.set(key, p);
    if (salted.size > 1_000) salted.delete(salted.keys().next().value!);
  }
  return p;
}

/** The verifier Postgres stores for a password (`CREATE ROLE ... PASSWORD '<verifier>'`), so the password itself never reaches the server. */
export async function scramVerifier(password: string): Promise<string> {
  const salt = randomBytes(16);
  const iterations = 4096;
  const key = await saltedPassword(password, salt, iterations);
  const stored = sha256(hmac(key, "Client Key"));
  const server = hmac(key, "Server Key");
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${stored.toString("base64")}:${server.toString("base64")}`;
}

/** Signs in on a fresh upstream connection; resolves with the bytes after AuthenticationOk. */
export function signIn(upstream: net.Socket, params: Record<string, string>, password: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const reader = new Reader();
    const nonce = randomBytes(18).toString("base64");
    const clientFirst = `n=,r=${nonce}`;
    let serverSignature = "";
    let busy = Promise.resolve();
    const fail = (e: Error) => {
      cleanup();
      upstream.destroy();
      reject(e);
    };
    const onClose = () => fail(new Error("the database server closed the connection during sign-in"));
    const cleanup = () => {
      upstream.off("data", onData);
      upstream.off("error", fail);
      upstream.off("close", onClose);
    };
    const step = async () => {
      for (let m = reader.message(); m; m = reader.message()) {
        if (m.type === 0x45) throw Object.assign(new Error(errorFields(m.body).M ?? "sign-in refused"), { fields: errorFields(m.body) });
        if (m.type !== 0x52) continue;
        const code = m.body.readInt32BE(0);
        if (code === 0) {
          // Paused until the caller pipes it on: nothing that follows may be lost.
          upstream.pause();
          cleanup();
          return resolve(reader.rest());
        }
        if (code === 3) upstream.write(message("p", cstr(password)));
        else if (code === 5) upstream.write(message("p", cstr(md5Password(params.user, password, m.body.subarray(4, 8)))));
        else if (code === 10) {
          const data = Buffer.from(`n,,${clientFirst}`);
          const len = Buffer.alloc(4);
          len.writeInt32BE(data.length);
          upstream.write(message("p", Buffer.concat([cstr("SCRAM-SHA-256"), len, data])));
        } else if (code === 11) {
          const serverFirst = m.body.subarray(4).toString("utf8");
          const attrs = Object.fromEntries(serverFirst.split(",").map((kv) => [kv[0], kv.slice(2)]));
          if (!attrs.r?.startsWith(nonce) || !attrs.s || !Number(attrs.i)) throw new Error("the database server sent a malformed SCRAM challenge");
          const key = await saltedPassword(password, Buffer.from(attrs.s, "base64"), Number(attrs.i));
          const clientKey = hmac(key, "Client Key");
          const finalNoProof = `c=biws,r=${attrs.r}`;
          const authMessage = `${clientFirst},${serverFirst},${finalNoProof}`;
          const signature = hmac(sha256(clientKey), authMessage);
          const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]));
          serverSignature = hmac(hmac(key, "Server Key"), authMessage).toString("base64");
          upstream.write(message("p", Buffer.from(`${finalNoProof},p=${proof.toString("base64")}`)));
        } else if (code === 12) {
          if (m.body.subarray(4).toString("utf8") !== `v=${serverSignature}`) throw new Error("the database server's SCRAM signature does not match");
        } else throw new Error(`unsupported authentication request ${code} from the database server`);
      }
    };
    const onData = (chunk: Buffer) => {
      reader.push(chunk);
      busy = busy.then(step).catch(fail);
    };
    upstream.on("data", onData);
    upstream.once("error", fail);
    upstream.once("close", onClose);
    upstream.write(startupPacket(params));
  });
}
