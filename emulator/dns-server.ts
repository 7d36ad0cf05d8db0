// The simulated public DNS over real DNS on loopback, so `dig @127.0.0.1 -p PORT` and any stock
// resolver see exactly what the verify routes see. It answers as an authoritative server would:
// SOA, NXDOMAIN versus NODATA (the zone's SOA in the authority section), CNAME chains, EDNS sizes
// with the TC bit on UDP, and TCP with RFC 7766 length framing on the same port. Packets are
// encoded and decoded by dns-packet; the answers come from models/public-dns. `ANY` is refused the
// way modern servers refuse it (RFC 8482: one synthesized HINFO "RFC8482"), a query it cannot
// answer is SERVFAIL (and logged), and every query is logged as a `dns` event.
import { createSocket } from "node:dgram";
import { createServer, isIPv6, type Socket as TcpSocket } from "node:net";
import * as packet from "dns-packet";
import type { Emu } from "./emu";
import { LOOPBACK } from "./loopback";
import { type Answer as Found, authority, resolve } from "./models/public-dns";

const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
const RCODE_NAMES = Object.fromEntries(Object.entries(RCODE).map(([k, v]) => [v, k]));
/** The TTL of the RFC 8482 answer to ANY: long enough that a client does not ask again soon. */
const ANY_TTL = 3600;
const OPCODE_QUERY = 0;
const SERVED = ["A", "AAAA", "CNAME", "MX", "NS", "SOA", "SRV", "TXT", "CAA"];
/** Without EDNS a UDP answer fits 512 bytes (RFC 1035); with it, what the client advertises, capped. */
const CLASSIC_UDP = 512;
const MAX_UDP = 4096;
const CNAME_HOPS = 8;
const TCP_IDLE_MS = 30_000;

export interface DnsServer {
  port: number;
  close(): Promise<void>;
}

export async function startDnsServer(emu: Emu, port = 0, host = LOOPBACK): Promise<DnsServer> {
  // TCP first, so UDP can take the same port when the system picked it; retry if that port's UDP side is taken.
  for (let attempt = 0; ; attempt++) {
    const tcp = await tcpServer(emu, port, host);
    try {
      const udp = await udpServer(emu, tcp.port, host);
      return { port: tcp.port, close: async () => void (await Promise.all([tcp.close(), udp.close()])) };
    } catch (err) {
      await tcp.close();
      if (port !== 0 || attempt >= 5) throw err;
    }
  }
}

async function udpServer(emu: Emu, port: number, host: string): Promise<DnsServer> {
  const socket = createSocket(isIPv6(host) ? "udp6" : "udp4");
  socket.on("message", (msg, peer) => {
    const reply = respond(emu, msg, "udp");
    if (reply) socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((ok, fail) => {
    socket.once("error", fail);
    socket.bind(port, host, () => ok());
  });
  socket.removeAllListeners("error");
  socket.on("error", (err) => emu.log({ kind: "error", msg: `DNS over UDP: ${err.message}`, stack: err.stack }));
  return { port, close: () => new Promise<void>((ok) => socket.close(() => ok())) };
}

async function tcpServer(emu: Emu, port: number, host: string): Promise<DnsServer> {
  const open = new Set<TcpSocket>();
  const server = createServer((conn) => {
    open.add(conn);
    conn.setTimeout(TCP_IDLE_MS, () => conn.destroy());
    conn.on("close", () => open.delete(conn));
    conn.on("error", () => conn.destroy());
    // RFC 7766: each message is preceded by its two-byte length; several may share a connection.
    let pending = Buffer.alloc(0);
    conn.on("data", (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const msg = pending.subarray(2, 2 + pending.readUInt16BE(0));
        pending = pending.subarray(2 + msg.length);
        const reply = respond(emu, msg, "tcp");
        if (!reply) return void conn.destroy();
        const len = Buffer.alloc(2);
        len.writeUInt16BE(reply.length);
        conn.write(Buffer.concat([len, reply]));
      }
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => ok());
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () => {
      for (const c of open) c.destroy();
      return new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

/** The reply to one query message; undefined when the message is too short to carry an id. */
export function respond(emu: Emu, msg: Buffer, transport: "udp" | "tcp"): Buffer | undefined {
  if (msg.length < 12) return undefined;
  try {
    return answer(emu, msg, transport);
  } catch (err) {
    // A query the server cannot answer never stops it: SERVFAIL, and the stack in the log.
    emu.log({ kind: "error", msg: `DNS: ${(err as Error).message}`, transport, stack: (err as Error).stack });
    return packet.encode({ type: "response", id: msg.readUInt16BE(0), flags: RCODE.SERVFAIL });
  }
}

function answer(emu: Emu, msg: Buffer, transport: "udp" | "tcp"): Buffer | undefined {
  let query: packet.DecodedPacket;
  try {
    query = packet.decode(msg);
  } catch {
    return packet.encode({ type: "response", id: msg.readUInt16BE(0), flags: RCODE.FORMERR });
  }
  const opcode = (query.flags ?? 0) >> 11 & 0xf;
  const opt = query.additionals?.find((a): a is packet.OptAnswer => a.type === "OPT");
  const base = (rcode: number, aa = true): packet.Packet => ({
    type: "response",
    id: query.id,
    flags: (opcode << 11) | (aa ? packet.AUTHORITATIVE_ANSWER : 0) | (query.flag_rd ? packet.RECURSION_DESIRED : 0) | rcode,
    questions: query.questions,
    // An EDNS query gets an OPT record back (RFC 6891), advertising what this server takes.
    additionals: opt ? [{ type: "OPT", name: ".", udpPayloadSize: MAX_UDP, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }] : [],
  });
  if (query.type !== "query" || query.questions?.length !== 1) return packet.encode(base(RCODE.FORMERR, false));
  if (opcode !== OPCODE_QUERY) return packet.encode(base(RCODE.NOTIMP, false));
  const q = query.questions[0];
  if (q.class !== undefined && q.class !== "IN" && (q.class as string) !== "ANY") return packet.encode(base(RCODE.REFUSED, false));

  const reply = base(RCODE.NOERROR);
  const type = String(q.type).toUpperCase();
  const found = type === "ANY" ? refuseAny(emu, q.name) : lookup(emu, q.name, type);
  reply.flags! |= found.rcode;
  reply.answers = found.answers;
  reply.authorities = found.authorities;
  emu.log({
    kind: "dns", msg: `${type} ${q.name} ${RCODE_NAMES[found.rcode]} (${found.answers.length} answer${found.answers.length === 1 ? "" : "s"})`,
    transport, name: q.name, type, rcode: RCODE_NAMES[found.rcode], answers: found.answers.length,
  });

  const bytes = packet.encode(reply);
  if (transport === "tcp") return bytes;
  const limit = opt ? Math.min(Math.max(opt.udpPayloadSize, CLASSIC_UDP), MAX_UDP) : CLASSIC_UDP;
  if (bytes.length <= limit) return bytes;
  // Too big for this client's UDP: set TC with no records, so it asks again over TCP.
  return packet.encode({ ...reply, flags: reply.flags! | packet.TRUNCATED_RESPONSE, answers: [], authorities: [] });
}

interface Lookup {
  rcode: number;
  answers: packet.Answer[];
  authorities: packet.Answer[];
}

/** Answers for one question, following CNAMEs; a miss carries the SOA of the name's zone. */
function lookup(emu: Emu, qname: string, type: string): Lookup {
  const answers: packet.Answer[] = [];
  let name = qname.toLowerCase().replace(/\.$/, "");
  for (let hop = 0; hop <= CNAME_HOPS; hop++) {
    const zone = authority(emu, name);
    const soa = (): packet.Answer => ({ type: "SOA", name: zone.zone, ttl: zone.soa.minimum, data: { ...zone.soa } });
    if (type === "SOA") {
      if (name === zone.zone && zone.exists) return { rcode: RCODE.NOERROR, answers: [soa()], authorities: [] };
    } else if (SERVED.includes(type)) {
      const own = resolve(emu, name, type).map((a) => record(name, a)).filter((r): r is packet.Answer => r !== undefined);
      if (own.length) return { rcode: RCODE.NOERROR, answers: [...answers, ...own], authorities: [] };
      const cname = type === "CNAME" ? undefined : resolve(emu, name, "CNAME")[0];
      if (cname && !answers.some((a) => a.name === cname.value)) {
        answers.push(record(name, cname)!);
        name = cname.value;
        continue;
      }
    }
    // NODATA: the name is there without this type. NXDOMAIN: nothing at or below the name.
    const exists = zone.exists || type === "SOA" && name === zone.zone;
    return { rcode: exists || answers.length ? RCODE.NOERROR : RCODE.NXDOMAIN, answers, authorities: [soa()] };
  }
  return { rcode: RCODE.NOERROR, answers, authorities: [] };
}

/**
 * RFC 8482 §4.2: an existing name gets one synthesized HINFO whose CPU is "RFC8482", not every
 * record it holds; a name that does not exist gets NXDOMAIN as for any other type.
 */
function refuseAny(emu: Emu, qname: string): Lookup {
  const name = qname.toLowerCase().replace(/\.$/, "");
  const zone = authority(emu, name);
  const soa: packet.Answer = { type: "SOA", name: zone.zone, ttl: zone.soa.minimum, data: { ...zone.soa } };
  if (!zone.exists) return { rcode: RCODE.NXDOMAIN, answers: [], authorities: [soa] };
  return { rcode: RCODE.NOERROR, answers: [{ type: "HINFO", name, ttl: ANY_TTL, data: { cpu: "RFC8482", os: "" } }], authorities: [] };
}

/** One resource record in dns-packet's shape; undefined for content the wire type cannot carry. */
function record(name: string, a: Found): packet.Answer | undefined {
  const head = { name, ttl: a.ttl };
  switch (a.type) {
    case "A":
      return /^(\d{1,3}\.){3}\d{1,3}$/.test(a.value) ? { ...head, type: "A", data: a.value } : undefined;
    case "AAAA":
      return a.value.includes(":") ? { ...head, type: "AAAA", data: a.value } : undefined;
    case "CNAME":
    case "NS":
      return { ...head, type: a.type, data: a.value };
    case "MX":
      return { ...head, type: "MX", data: { preference: a.priority ?? 10, exchange: a.value } };
    case "TXT": {
      // One TXT record holds strings of at most 255 bytes each; a long value is split across several.
      const bytes = Buffer.from(a.value, "utf8");
      const parts: Buffer[] = [];
      for (let i = 0; i < bytes.length || i === 0; i += 255) parts.push(bytes.subarray(i, i + 255));
      return { ...head, type: "TXT", data: parts };
    }
    case "SRV": {
      const [weight, port, target] = a.value.split(/\s+/);
      return target ? { ...head, type: "SRV", data: { priority: a.priority ?? 0, weight: Number(weight) || 0, port: Number(port) || 0, target } } : undefined;
    }
    case "CAA": {
      const m = /^(\d+)\s+(issue|issuewild|iodef)\s+"?(.*?)"?$/i.exec(a.value);
      return m ? { ...head, type: "CAA", data: { flags: Number(m[1]), tag: m[2].toLowerCase() as "issue", value: m[3] } } : undefined;
    }
    default:
      return undefined;
  }
}
