// A POSTGRES service's own loopback listener, open from the service's creation so its address is
// known at once. It speaks the start of the wire protocol itself: declines SSL, checks the
// startup's user and database names and the password (md5), passes cancel requests on, and then
// hands the connection, signed in upstream, to whatever serves the database.
import { randomBytes } from "node:crypto";
import net from "node:net";
import { LOOPBACK } from "./loopback";
import type { DatabaseSettings } from "./models/lifecycle";
import { AUTH_OK, CANCEL_REQUEST, fatal, GSS_REQUEST, md5Challenge, md5Matches, PROTOCOL_3, Reader, SSL_REQUEST, startupParams } from "./postgres-wire";

export interface ListenerHooks {
  /** The service's database settings now; undefined once it is gone. */
  settings(): DatabaseSettings | undefined;
  /** Why a login is refused whatever its password (SQLSTATE and message), if it is. */
  refusal(): { code: string; message: string } | undefined;
  /** A connection to the database, signed in; `rest` is what the server sent after AuthenticationOk. */
  upstream(params: Record<string, string>): Promise<{ socket: net.Socket; rest: Buffer }>;
  cancel(packet: Buffer): void;
}

export class ServiceListener {
  private readonly server = net.createServer();
  private readonly sockets = new Set<net.Socket>();
  /** The port, once bound: the one asked for if it is free, else any. */
  readonly port: Promise<number>;

  constructor(wanted: number, private readonly hooks: ListenerHooks) {
    this.port = bind(this.server, wanted).catch(() => bind(this.server, 0));
    this.server.on("connection", (s) => this.accept(s));
  }

  /** Stops accepting; resolves once every connection it had is gone too. */
  stopAccepting(): Promise<void> {
    return this.port.then(() => new Promise<void>((resolve) => this.server.close(() => resolve())), () => undefined);
  }

  /** Ends every connection, the clients' and their upstream ones. */
  dropConnections(): void {
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    const closed = this.stopAccepting();
    this.dropConnections();
    await closed;
  }

  private accept(client: net.Socket): void {
    this.sockets.add(client);
    client.setNoDelay(true);
    client.on("close", () => this.sockets.delete(client));
    client.on("error", () => client.destroy());
    const reader = new Reader();
    let params: Record<string, string> | undefined;
    const salt = randomBytes(4);
    // Postgres' own authentication_timeout: a client that never finishes logging in is dropped.
    const login = setTimeout(() => fatal(client, "08P01", "canceling authentication due to timeout"), 60_000);
    login.unref();
    client.on("close", () => clearTimeout(login));

    const onData = (chunk: Buffer) => {
      reader.push(chunk);
      while (!params) {
        let packet: Buffer | null;
        try {
          packet = reader.packet();
        } catch (e) {
          return fatal(client, "08P01", (e as Error).message);
        }
        if (!packet) return;
        const code = packet.readInt32BE(4);
        if (code === SSL_REQUEST || code === GSS_REQUEST) { client.write("N"); continue; }
        if (code === CANCEL_REQUEST) {
          this.hooks.cancel(packet);
          return void client.destroy();
        }
        if (code !== PROTOCOL_3) return fatal(client, "08P01", "unsupported frontend protocol");
        const p = startupParams(packet);
        const db = this.hooks.settings();
        if (!db) return fatal(client, "3D000", `database "${p.database}" does not exist`);
        if (p.user !== db.user) return fatal(client, "28000", `role "${p.user}" does not exist`);
        if ((p.database ?? p.user) !== db.name) return fatal(client, "3D000", `database "${p.database}" does not exist`);
        const refused = this.hooks.refusal();
        if (refused) return fatal(client, refused.code, refused.message);
        params = p;
        client.write(md5Challenge(salt));
      }
      let m: { type: number; body: Buffer } | null;
      try {
        m = reader.message();
      } catch (e) {
        return fatal(client, "08P01", (e as Error).message);
      }
      if (!m) return;
      clearTimeout(login);
      client.off("data", onData);
      client.pause();
      const db = this.hooks.settings();
      if (m.type !== 0x70 || !db || !md5Matches(m.body, db.user, db.password, salt)) {
        return fatal(client, "28P01", `password authentication failed for user "${params.user}"`);
      }
      void this.handOver(client, params, reader.rest());
    };
    client.on("data", onData);
  }

  private async handOver(client: net.Socket, params: Record<string, string>, early: Buffer): Promise<void> {
    const { user: _u, database: _d, ...rest } = params;
    let upstream: net.Socket;
    let after: Buffer;
    try {
      ({ socket: upstream, rest: after } = await this.hooks.upstream(rest));
    } catch (e) {
      const fields = (e as { fields?: Record<string, string> }).fields;
      return fatal(client, fields?.C ?? "58000", fields?.M ?? (e as Error).message);
    }
    if (client.destroyed) return void upstream.destroy();
    this.sockets.add(upstream);
    // What the server said last (e.g. its FATAL at shutdown) still reaches the client.
    upstream.on("close", () => { this.sockets.delete(upstream); client.end(); });
    upstream.on("error", () => upstream.destroy());
    client.on("close", () => upstream.destroy());
    client.write(Buffer.concat([AUTH_OK, after]));
    if (early.length) upstream.write(early);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  }
}

function bind(server: net.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const fail = (e: Error) => reject(e);
    server.once("error", fail);
    server.listen(port, LOOPBACK, () => {
      server.off("error", fail);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}
