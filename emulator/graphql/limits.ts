// What one GraphQL request may ask for, checked before the document is validated or run: its
// size in tokens, how deeply its selections nest and how many fields it resolves (aliases and
// fragments counted at every place they are used). Without them, one request of a few kilobytes
// can ask for millions of fields (fragments spread in fragments) or nest until the stack breaks.
import { type DefinitionNode, type FragmentDefinitionNode, Kind, parse, type SelectionSetNode } from "graphql";
import { badRequest } from "../errors";

/** graphql-js's introspection query nests 15 deep and asks for 220 fields; the API's own operations, far less. */
export const GRAPHQL_LIMITS = { tokens: 5_000, depth: 20, cost: 1_000 };

interface Measure {
  depth: number;
  cost: number;
}

/** Refuses (BAD_USER_INPUT, naming the limit) a query past a limit; a query that does not parse is left to GraphQL's own error. */
export function checkGraphqlLimits(query: string, limits = GRAPHQL_LIMITS): void {
  let definitions: readonly DefinitionNode[];
  try {
    definitions = parse(query, { maxTokens: limits.tokens, noLocation: true }).definitions;
  } catch (err) {
    if (err instanceof RangeError) throw badRequest(`query: nests too deeply to read (at most ${limits.depth} levels)`);
    // graphql-js 16 words it "contains more that N tokens".
    if (/contains more tha[nt] \d+ tokens/.test((err as Error).message)) throw badRequest(`query: has more than ${limits.tokens} tokens; send a smaller document`);
    return;
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  // Each fragment is measured once, so a fragment spread many times costs nothing more to measure.
  const measured = new Map<string, Measure>();
  const measuring = new Set<string>();
  const fragment = (name: string): Measure => {
    const known = measured.get(name);
    if (known) return known;
    const def = fragments.get(name);
    // Unknown or cyclic: GraphQL's validation refuses the document with its own message.
    if (!def || measuring.has(name)) return { depth: 0, cost: 0 };
    measuring.add(name);
    const m = selections(def.selectionSet);
    measuring.delete(name);
    measured.set(name, m);
    return m;
  };
  const selections = (set: SelectionSetNode): Measure => {
    let depth = 0;
    let cost = 0;
    for (const s of set.selections) {
      const inner = s.kind === Kind.FIELD
        ? (s.selectionSet ? selections(s.selectionSet) : { depth: 0, cost: 0 })
        : s.kind === Kind.INLINE_FRAGMENT ? selections(s.selectionSet) : fragment(s.name.value);
      const own = s.kind === Kind.FIELD ? 1 : 0;
      depth = Math.max(depth, inner.depth + own);
      cost += inner.cost + own;
    }
    return { depth, cost };
  };
  for (const d of definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    const { depth, cost } = selections(d.selectionSet);
    const name = d.name ? `operation ${d.name.value}` : "the operation";
    if (depth > limits.depth) throw badRequest(`query: ${name} nests ${depth} levels deep; at most ${limits.depth} are allowed`);
    if (cost > limits.cost) throw badRequest(`query: ${name} asks for ${cost} fields (aliases and fragments counted where used); at most ${limits.cost} are allowed`);
  }
}
