// The simulated public DNS over real DNS (UDP, loopback), so `dig @127.0.0.1 -p PORT` and any
// resolver library see exactly what the verify routes see. Answers come from models/public-dns.
import { createSocket, type Socket } from "node:dgram";
import { isIPv6 } from "node:net";
import type { Emu } from "./emu";
import { resolve } from "./models/public-dns";

const TYPES: Record<number, string> = { 1: "A", 2: "NS", 5: "CNAME", 15: "MX", 16: "TXT", 28: "AAAA", 33: "SRV", 257: "CAA" };
const CODES = Object.fromEntries(Object.entries(TYPES).map(([code, name]) => [name, Number(code)]));
const RCODE_FORMERR = 1;
const RCODE_NOTIMP = 4;

export interface DnsServer {
  port: number;
  close(): Promise<void>;
}

export async function startDnsServer(emu: Emu, port = 0, host = "127.0.0.1"): Promise<DnsServer> {
  const socket: Socket = createSocket("udp4");
  socket.on("message", (msg, peer) => {
    const reply = answer(emu, msg);
    if (reply) socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((ok, fail) => {
    socket.once("error", fail);
    socket.bind(port, host, () => ok());
  });
  return {
    port: socket.address().port,
    close: () => new Promise<void>((ok) => socket.close(() => ok())),
  };
}

/** Builds the reply to one query; undefined for a packet too short to answer. */
export function answer(emu: Emu, query: Buffer): Buffer | undefined {
  if (query.length < 12) return undefined;
  const id = query.readUInt16BE(0);
  const flags = query.readUInt16BE(2);
  const header = (rcode: number, ancount: number) => {
    const h = Buffer.alloc(12);
    h.writeUInt16BE(id, 0);
    // QR, the query's opcode and RD, authoritative.
    h.writeUInt16BE(0x8000 | (flags & 0x7800) | 0x0400 | (flags & 0x0100) | rcode, 2);
    h.writeUInt16BE(1, 4);
    h.writeUInt16BE(ancount, 6);
    return h;
  };
  let q: { name: string; type: number; end: number };
  try {
    if (query.readUInt16BE(4) < 1) throw new Error("no question");
    q = readQuestion(query, 12);
  } catch {
    const h = header(RCODE_FORMERR, 0);
    h.writeUInt16BE(0, 4);
    return h;
  }
  const question = query.subarray(12, q.end);
  const type = TYPES[q.type];
  if (!type) return Buffer.concat([header(RCODE_NOTIMP, 0), question]);
  const records = resolve(emu, q.name, type)
    .map((a) => rdata(type, a.value, a.priority))
    .filter((r): r is Buffer => r !== undefined);
  const answers = records.map((data) => {
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // a pointer to the question's name
    rr.writeUInt16BE(q.type, 2);
    rr.writeUInt16BE(1, 4); // class IN
    rr.writeUInt32BE(300, 6);
    rr.writeUInt16BE(data.length, 10);
    return Buffer.concat([rr, data]);
  });
  return Buffer.concat([header(0, answers.length), question, ...answers]);
}

function readQuestion(buf: Buffer, offset: number): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let i = offset;
  for (;;) {
    const len = buf.readUInt8(i);
    if (len === 0) break;
    if (len > 63) throw new Error("compressed or oversized label in a question");
    labels.push(buf.toString("ascii", i + 1, i + 1 + len));
    i += len + 1;
  }
  return { name: labels.join(".").toLowerCase(), type: buf.readUInt16BE(i + 1), end: i + 5 };
}

function encodeName(name: string): Buffer {
  const parts = name.replace(/\.$/, "").split(".").filter(Boolean);
  return Buffer.concat([...parts.map((p) => Buffer.concat([Buffer.from([p.length]), Buffer.from(p, "ascii")])), Buffer.from([0])]);
}

function rdata(type: string, value: string, priority: number | null): Buffer | undefined {
  switch (type) {
    case "A": {
      const octets = value.split(".").map(Number);
      return octets.length === 4 && octets.every((o) => o >= 0 && o <= 255) ? Buffer.from(octets) : undefined;
    }
    case "AAAA":
      return isIPv6(value) ? ipv6(value) : undefined;
    case "NS":
    case "CNAME":
      return encodeName(value);
    case "MX": {
      const pref = Buffer.alloc(2);
      pref.writeUInt16BE(priority ?? 10);
      return Buffer.concat([pref, encodeName(value)]);
    }
    case "TXT": {
      const bytes = Buffer.from(value, "utf8");
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length || i === 0; i += 255) {
        const part = bytes.subarray(i, i + 255);
        chunks.push(Buffer.from([part.length]), part);
      }
      return Buffer.concat(chunks);
    }
    case "SRV": {
      const [weight, port, target] = value.split(/\s+/);
      const head = Buffer.alloc(6);
      head.writeUInt16BE(priority ?? 0, 0);
      head.writeUInt16BE(Number(weight) || 0, 2);
      head.writeUInt16BE(Number(port) || 0, 4);
      return target ? Buffer.concat([head, encodeName(target)]) : undefined;
    }
    case "CAA": {
      const m = /^(\d+)\s+(\S+)\s+"?(.*?)"?$/.exec(value);
      if (!m) return undefined;
      return Buffer.concat([Buffer.from([Number(m[1]), m[2].length]), Buffer.from(m[2], "ascii"), Buffer.from(m[3], "utf8")]);
    }
    default:
      return undefined;
  }
}

function ipv6(addr: string): Buffer {
  const [head, tail] = addr.includes("::") ? addr.split("::") : [addr, undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g || "0", 16), i * 2));
  return out;
}

export { CODES as DNS_TYPE_CODES };
