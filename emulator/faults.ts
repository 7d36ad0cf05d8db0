// Fault injection for tests: latency, error statuses (429 with Retry-After) and "commit, then drop
// the connection", each for a rate of requests or for the next N that match. A rule that cannot be
// evaluated (a pattern that does not compile, added in-process past the control route's check) is
// skipped and reported once: a fault rule never takes the API down.
import { randomUUID } from "node:crypto";

export const FAULT_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

export interface FaultRule {
  id: string;
  kind: "status" | "latency" | "drop";
  /** Method to match; any when absent. */
  method?: string;
  /** Path prefix to match. */
  path?: string;
  /** Regular expression the path must match. */
  pathRegex?: string;
  status?: number;
  /** The error's message (a status fault): tests make the API echo a value back, as some errors do. */
  message?: string;
  /** For 429/503: seconds, or "date" for an HTTP-date this many seconds ahead (`retryAfterSeconds`). */
  retryAfter?: "seconds" | "date";
  retryAfterSeconds?: number;
  latencyMs?: number;
  /** Fraction of matching requests affected, 0..1. */
  rate?: number;
  /** Affect only the next N matching requests. */
  count?: number;
}

/** Why a pattern does not compile as a JavaScript regular expression; undefined when it does. */
export function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export class Faults {
  private rules: FaultRule[] = [];
  /** Per rule id: its compiled pattern, undefined when it has none, null when the rule is unusable. */
  private readonly patterns = new Map<string, RegExp | null | undefined>();

  /** `broken` hears of a rule that cannot be evaluated, once per rule. */
  constructor(private readonly broken: (rule: FaultRule, why: string) => void = () => undefined) {}

  add(input: Omit<FaultRule, "id">): FaultRule {
    const rule = { id: randomUUID(), ...input };
    this.rules.push(rule);
    return rule;
  }

  list(): FaultRule[] {
    return this.rules;
  }

  clear(): void {
    this.rules = [];
    this.patterns.clear();
  }

  /** Returns the rules of a kind that fire for this request, consuming their counts. */
  take(kind: FaultRule["kind"], method: string, path: string): FaultRule | undefined {
    for (const rule of this.rules) {
      if (rule.kind !== kind || !this.matches(rule, method, path)) continue;
      if (rule.count !== undefined && rule.count <= 0) continue;
      if (rule.rate !== undefined && Math.random() >= rule.rate) continue;
      if (rule.count !== undefined) rule.count -= 1;
      return rule;
    }
    return undefined;
  }

  private matches(rule: FaultRule, method: string, path: string): boolean {
    if (rule.method && String(rule.method).toUpperCase() !== method.toUpperCase()) return false;
    if (path.startsWith("/_emulator")) return false;
    if (rule.path && !path.startsWith(String(rule.path))) return false;
    const re = this.usable(rule);
    if (re === null) return false;
    return re === undefined || re.test(path);
  }

  /** null for a rule that cannot be evaluated; else its compiled pattern, if it has one. */
  private usable(rule: FaultRule): RegExp | null | undefined {
    if (this.patterns.has(rule.id)) return this.patterns.get(rule.id);
    const problem = ruleProblem(rule);
    const re = problem ? null : rule.pathRegex !== undefined ? new RegExp(rule.pathRegex) : undefined;
    if (problem) this.broken(rule, `${problem}; the rule never matches`);
    this.patterns.set(rule.id, re);
    return re;
  }
}

/** What makes a rule unusable: the control route refuses all of these; an in-process caller might not. */
function ruleProblem(rule: FaultRule): string | undefined {
  const number = (v: unknown, min: number, max: number) => v === undefined || (typeof v === "number" && v >= min && v <= max);
  if (rule.pathRegex !== undefined) {
    const problem = typeof rule.pathRegex === "string" ? regexProblem(rule.pathRegex) : "not a string";
    if (problem) return `pathRegex does not compile (${problem})`;
  }
  if (!number(rule.status, 400, 599) || (rule.status !== undefined && !Number.isInteger(rule.status))) return `status ${String(rule.status)} is not an error status`;
  if (!number(rule.latencyMs, 0, 60_000)) return `latencyMs ${String(rule.latencyMs)} is not between 0 and 60000`;
  if (!number(rule.retryAfterSeconds, 0, 86_400)) return `retryAfterSeconds ${String(rule.retryAfterSeconds)} is not between 0 and 86400`;
  return undefined;
}
