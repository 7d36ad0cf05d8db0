// Cursor pages read from an index (store-index.ts): the cursor names the last row listed, so the
// next page starts there at once, however deep, and a row added or deleted meanwhile shifts nothing
// (an offset would skip or repeat one). Same page sizes and errors as http.ts's `page`.
import { badRequest } from "./errors";
import type { Row } from "./store";
import type { After, Index } from "./store-index";

const LIMIT_DEFAULT = 20;
const LIMIT_MAX = 100;

/** base64url JSON: the last row's id, place and seq, and the page size. */
interface Cursor {
  i: string;
  p: string | number;
  s: number;
  l: number;
}

const badCursor = () => badRequest("cursor: is not a cursor this API returned; pass nextCursor back unchanged");

function readCursor(raw: string): Cursor {
  let c: Cursor;
  try {
    c = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw badCursor();
  }
  const placeOk = typeof c?.p === "string" || (typeof c?.p === "number" && Number.isFinite(c.p));
  if (typeof c?.i !== "string" || !placeOk || !Number.isInteger(c.s) || !Number.isInteger(c.l) || c.l < 1 || c.l > LIMIT_MAX) throw badCursor();
  return c;
}

/** The page size a query asks for (a cursor carries its own). */
function limitOf(query: Record<string, unknown>): number {
  if (query.limit === undefined) return LIMIT_DEFAULT;
  const n = Number(query.limit);
  if (!Number.isInteger(n) || n < 1) throw badRequest("limit: must be a positive integer");
  return Math.min(n, LIMIT_MAX);
}

/**
 * One page `{data, nextCursor}` of a group of an index, in its order (or reversed), the rows
 * `keep` refuses left out; it visits the page's rows and one more, plus those refused.
 */
export function pageOf<T extends Row, V>(
  index: Index<T>, group: string, query: Record<string, unknown>, view: (row: T) => V,
  opts: { reverse?: boolean; keep?: (row: T) => boolean } = {},
): { data: V[]; nextCursor: string | null } {
  let after: After | undefined;
  let limit: number;
  if (typeof query.cursor === "string" && query.cursor !== "") {
    const c = readCursor(query.cursor);
    after = { id: c.i, place: c.p, seq: c.s };
    limit = c.l;
  } else limit = limitOf(query);
  const rows: T[] = [];
  let more = false;
  for (const row of index.rows(group, { after, reverse: opts.reverse })) {
    if (opts.keep && !opts.keep(row)) continue;
    if (rows.length === limit) {
      more = true;
      break;
    }
    rows.push(row);
  }
  const last = more ? index.after(rows[rows.length - 1]) : undefined;
  const next = last ? Buffer.from(JSON.stringify({ i: last.id, p: last.place, s: last.seq, l: limit } satisfies Cursor)).toString("base64url") : null;
  return { data: rows.map(view), nextCursor: next };
}
