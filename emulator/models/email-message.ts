// The outgoing message of a send (conventions §2.1) and its limits (§8): every rule answers 400
// naming the field, except the size, which is 413. All broken rules are reported at once. A field
// that ends up in a header line (addresses and their names, the subject, header values, an
// attachment's filename, type and id) must not hold a line break: CR or LF would inject headers.
import { z } from "zod";
import { badRequest, tooLarge } from "../errors";

export const MAX_RECIPIENTS = 50;
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
export const MAX_HEADERS = 25;
export const MAX_TAGS = 10;
export const MAX_TAG_KEY = 64;
export const MAX_TAG_VALUE = 256;
export const REFUSED_HEADERS = ["from", "to", "cc", "bcc", "subject", "dkim-signature", "received"];

export interface Address {
  name: string | null;
  address: string;
}

export interface Attachment {
  filename: string;
  content: string;
  content_type: string | null;
  content_id: string | null;
  size: number;
}

export interface Message {
  from: Address;
  to: Address[];
  cc: Address[];
  bcc: Address[];
  replyTo: Address[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  attachments: Attachment[];
  tags: Record<string, string>;
  /** html, text and decoded attachment bytes. */
  size: number;
}

const EMAIL = z.email();
const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]+$/;
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/;
/** Linear on purpose: a grouped pattern overflows the regex stack on a 10 MiB attachment. */
const isBase64 = (s: string) => s.length % 4 === 0 && BASE64_CHARS.test(s);
const KEY_RULE = /^[\x21-\x7e]{1,255}$/;
const LINE_BREAK = /[\r\n]/;
const NO_BREAKS = "must not contain a line break (CR or LF): it goes into a header line";

/** `Name <address>`, `"Name" <address>` or a bare address; undefined when the address is not one. */
export function parseAddress(raw: string): Address | undefined {
  const m = /^\s*(.*?)\s*<([^<>]*)>\s*$/.exec(raw);
  const address = (m ? m[2] : raw).trim();
  if (!EMAIL.safeParse(address).success) return undefined;
  const name = m ? m[1].replace(/^"(.*)"$/, "$1").trim() : "";
  return { name: name || null, address };
}

export const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).toLowerCase();
export const localPartOf = (address: string) => address.slice(0, address.lastIndexOf("@")).toLowerCase();
export const formatAddress = (a: Address) => (a.name ? `${a.name} <${a.address}>` : a.address);

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The caller's `idempotency_key` in the body, checked like the header. */
export function bodyIdempotencyKey(body: unknown): string | undefined {
  if (!isPlainObject(body) || body.idempotency_key === undefined || body.idempotency_key === null) return undefined;
  const key = body.idempotency_key;
  if (typeof key !== "string" || !KEY_RULE.test(key)) throw badRequest("idempotency_key: must be 1 to 255 printable characters");
  return key;
}

/** Validates a send body; 400 listing every broken rule by field, or 413 when it is too large. */
export function parseMessage(body: unknown): Message {
  if (!isPlainObject(body)) throw badRequest("body: must be a JSON object (the message: from, to, subject, html or text)");
  const issues: string[] = [];
  const fail = (field: string, rule: string) => issues.push(`${field}: ${rule}`);

  let from: Address | undefined;
  if (typeof body.from !== "string" || !body.from.trim()) fail("from", "is required: 'Name <address>' or a bare address");
  else if (LINE_BREAK.test(body.from)) fail("from", NO_BREAKS);
  else if (!(from = parseAddress(body.from))) fail("from", `'${body.from}' is not an address: expected 'Name <address>' or a bare address`);

  const list = (field: string, value: unknown, required: boolean): Address[] => {
    if (value === undefined || value === null) {
      if (required) fail(field, "is required: an address or an array of addresses");
      return [];
    }
    const items = typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined;
    if (!items) {
      fail(field, "must be an address or an array of addresses");
      return [];
    }
    if (required && items.length === 0) fail(field, "needs at least one address");
    const out: Address[] = [];
    items.forEach((item, i) => {
      const at = Array.isArray(value) ? `${field}[${i}]` : field;
      if (typeof item === "string" && LINE_BREAK.test(item)) return fail(at, NO_BREAKS);
      const a = typeof item === "string" ? parseAddress(item) : undefined;
      if (a) out.push(a);
      else fail(at, `${JSON.stringify(item)} is not an address`);
    });
    return out;
  };
  const to = list("to", body.to, true);
  const cc = list("cc", body.cc, false);
  const bcc = list("bcc", body.bcc, false);
  const count = (v: unknown) => (typeof v === "string" ? 1 : Array.isArray(v) ? v.length : 0);
  const recipients = count(body.to) + count(body.cc) + count(body.bcc);
  if (recipients > MAX_RECIPIENTS) fail("to, cc, bcc", `at most ${MAX_RECIPIENTS} recipients in all; this message has ${recipients}`);

  if (body.reply_to !== undefined && body.replyTo !== undefined) fail("reply_to", "give reply_to or replyTo, not both");
  const replyTo = list(body.reply_to !== undefined ? "reply_to" : "replyTo", body.reply_to ?? body.replyTo, false);

  if (typeof body.subject !== "string" || body.subject.trim() === "") fail("subject", "is required and must not be empty");
  else if (LINE_BREAK.test(body.subject)) fail("subject", NO_BREAKS);
  const html = optionalString(body.html, "html", fail);
  const text = optionalString(body.text, "text", fail);
  if (!html && !text) fail("html, text", "at least one of html or text is required and must not be empty");

  const headers = stringMap(body.headers, "headers", fail);
  const headerNames = Object.keys(headers);
  if (headerNames.length > MAX_HEADERS) fail("headers", `at most ${MAX_HEADERS} entries; this message has ${headerNames.length}`);
  for (const name of headerNames) {
    if (!HEADER_NAME.test(name)) fail(`headers.${name}`, "is not a header name (printable characters, no colon or space)");
    else if (REFUSED_HEADERS.includes(name.toLowerCase())) fail(`headers.${name}`, `is refused: ${REFUSED_HEADERS.map(canonical).join(", ")} are set by the platform or by the message's own fields`);
    if (LINE_BREAK.test(headers[name])) fail(`headers.${name}`, NO_BREAKS);
  }

  const tags = stringMap(body.tags, "tags", fail);
  const tagKeys = Object.keys(tags);
  if (tagKeys.length > MAX_TAGS) fail("tags", `at most ${MAX_TAGS} entries; this message has ${tagKeys.length}`);
  for (const k of tagKeys) {
    if (k.length === 0 || k.length > MAX_TAG_KEY) fail(`tags.${k}`, `a tag key has 1 to ${MAX_TAG_KEY} characters; this one has ${k.length}`);
    if (tags[k].length > MAX_TAG_VALUE) fail(`tags.${k}`, `a tag value has at most ${MAX_TAG_VALUE} characters; this one has ${tags[k].length}`);
  }

  const attachments = parseAttachments(body.attachments, fail);

  if (issues.length) throw badRequest(issues);
  const size = Buffer.byteLength(html ?? "") + Buffer.byteLength(text ?? "") + attachments.reduce((n, a) => n + a.size, 0);
  if (size > MAX_MESSAGE_BYTES) {
    throw tooLarge(`message: ${size} bytes of html, text and decoded attachments; a message has at most 10 MiB (${MAX_MESSAGE_BYTES} bytes)`);
  }
  return { from: from!, to, cc, bcc, replyTo, subject: body.subject as string, html, text, headers, attachments, tags, size };
}

function optionalString(v: unknown, field: string, fail: (f: string, r: string) => void): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") {
    fail(field, "must be a string");
    return null;
  }
  return v;
}

function stringMap(v: unknown, field: string, fail: (f: string, r: string) => void): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isPlainObject(v)) {
    fail(field, "must be an object of names to string values");
    return {};
  }
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(v)) {
    if (typeof value === "string") out[k] = value;
    else fail(`${field}.${k}`, "must be a string");
  }
  return out;
}

function parseAttachments(v: unknown, fail: (f: string, r: string) => void): Attachment[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    fail("attachments", "must be an array of {filename, content, content_type?, content_id?}");
    return [];
  }
  const out: Attachment[] = [];
  v.forEach((a, i) => {
    const at = `attachments[${i}]`;
    if (!isPlainObject(a)) return fail(at, "must be an object {filename, content, content_type?, content_id?}");
    if (typeof a.filename !== "string" || !a.filename.trim()) fail(`${at}.filename`, "is required: a non-empty string");
    // The filename, type and id go into the part's Content-Disposition, Content-Type and Content-ID.
    const broken = (["filename", "content_type", "content_id"] as const).filter((f) => typeof a[f] === "string" && LINE_BREAK.test(a[f]));
    for (const f of broken) fail(`${at}.${f}`, NO_BREAKS);
    const content = typeof a.content === "string" ? a.content.replace(/\s+/g, "") : undefined;
    if (content === undefined) fail(`${at}.content`, "is required: the file's bytes as a base64 string");
    else if (!isBase64(content)) fail(`${at}.content`, "is not valid base64");
    for (const f of ["content_type", "content_id"] as const) {
      if (a[f] !== undefined && a[f] !== null && typeof a[f] !== "string") fail(`${at}.${f}`, "must be a string");
    }
    if (a.content_type && typeof a.content_type === "string" && !broken.includes("content_type") && !/^[\w.+-]+\/[\w.+-]+(\s*;.*)?$/.test(a.content_type)) {
      fail(`${at}.content_type`, `'${a.content_type}' is not a MIME type (type/subtype)`);
    }
    if (typeof a.filename !== "string" || content === undefined || !isBase64(content) || broken.length) return;
    out.push({
      filename: a.filename,
      content,
      content_type: typeof a.content_type === "string" ? a.content_type : null,
      content_id: typeof a.content_id === "string" ? a.content_id : null,
      size: Buffer.from(content, "base64").length,
    });
  });
  return out;
}

const canonical = (h: string) => h.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase()).replace("Dkim", "DKIM");
