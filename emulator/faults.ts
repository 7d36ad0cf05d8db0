// Fault injection for tests: latency, error statuses (429 with Retry-After) and "commit, then drop
// the connection", each for a rate of requests or for the next N that match.
import { randomUUID } from "node:crypto";

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
  /** For 429/503: seconds, or "date" for an HTTP-date this many seconds ahead (`retryAfterSeconds`). */
  retryAfter?: "seconds" | "date";
  retryAfterSeconds?: number;
  latencyMs?: number;
  /** Fraction of matching requests affected, 0..1. */
  rate?: number;
  /** Affect only the next N matching requests. */
  count?: number;
}

export class Faults {
  private rules: FaultRule[] = [];

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
  }

  /** Returns the rules of a kind that fire for this request, consuming their counts. */
  take(kind: FaultRule["kind"], method: string, path: string): FaultRule | undefined {
    for (const rule of this.rules) {
      if (rule.kind !== kind || !matches(rule, method, path)) continue;
      if (rule.count !== undefined && rule.count <= 0) continue;
      if (rule.rate !== undefined && Math.random() >= rule.rate) continue;
      if (rule.count !== undefined) rule.count -= 1;
      return rule;
    }
    return undefined;
  }
}

function matches(rule: FaultRule, method: string, path: string): boolean {
  if (rule.method && rule.method.toUpperCase() !== method.toUpperCase()) return false;
  if (path.startsWith("/_emulator")) return false;
  if (rule.path && !path.startsWith(rule.path)) return false;
  if (rule.pathRegex && !new RegExp(rule.pathRegex).test(path)) return false;
  return true;
}
