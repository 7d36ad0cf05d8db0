// Input rules shared by several resources, written once so check messages read the same everywhere.
import { z } from "zod";
import { parseDuration } from "./waiter";

export const NAME_RULE = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;
export const name = (what: string) =>
  z
    .string({ error: "must be a string" })
    .regex(NAME_RULE, "must be 1 to 64 characters: letters, digits, spaces, '.', '_' or '-', starting with a letter or digit")
    .describe(`${what} 1 to 64 characters: letters, digits, spaces, '.', '_' or '-', starting with a letter or digit.`);

export const id = (what: string) => z.string({ error: "must be a string id" }).min(1, "must not be empty").describe(what);

/** An id the platform states is a uuid, as its request bodies check it. */
export const uuid = (what: string) => z.uuid({ error: "must be a uuid (an id the platform gave, e.g. 0b6f1c2e-...)" }).describe(what);

/** Described by each user, which adds the rule: a region key (getRegions lists them). */
export const regionKey = z
  .string({ error: "must be a string" })
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "must be a region key such as 'af-west-1' (lowercase letters, digits and '-')");

export const text = (max: number, what: string) =>
  z.string({ error: "must be a string" }).max(max, `must be at most ${max} characters`).describe(what);

/** A wait limit such as "90s", "15m" or "1h30m". */
export const duration = (what: string) =>
  z
    .string({ error: 'must be a duration such as "90s" or "15m"' })
    .refine((s) => {
      try {
        parseDuration(s);
        return true;
      } catch {
        return false;
      }
    }, 'must be a duration such as "90s", "15m" or "1h30m"')
    .describe(`${what} Format: numbers with the units ms, s, m or h, as in "90s", "15m" or "1h30m"; a bare number is seconds.`);

// ---- cron schedules ----
// The platform's five-field UTC grammar (the emulator's models/cron.ts parses the same; a test
// runs both over one table): numbers, names for months and weekdays, '*', '?', ranges, steps, lists.
const CRON_FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"] },
  { name: "day of week", min: 0, max: 7, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] },
];

/** What is wrong with a cron expression, naming the field and the rule; undefined when it is valid. */
export function cronProblem(expr: string): string | undefined {
  const trimmed = expr.trim();
  if (trimmed.startsWith("@")) return `'${expr}' is a macro; write the five fields instead (e.g. '0 0 * * *' for daily)`;
  const parts = trimmed.split(/\s+/);
  if (parts.length !== 5) return `'${expr}' must have five fields: minute hour day-of-month month day-of-week (UTC)`;
  for (let i = 0; i < 5; i++) {
    const f = CRON_FIELDS[i];
    const value = (s: string): number | string => {
      const named = f.names?.indexOf(s.toUpperCase()) ?? -1;
      if (named >= 0) return f.name === "month" ? named + 1 : named;
      if (!/^\d+$/.test(s)) return `${f.name} field: '${s}' is not a number${f.names ? ` or a name such as ${f.names[0]}` : ""}`;
      const n = Number(s);
      return n < f.min || n > f.max ? `${f.name} field: ${n} is outside ${f.min}-${f.max}` : n;
    };
    for (const item of parts[i].split(",")) {
      if (item === "") return `${f.name} field: empty list item in '${parts[i]}'`;
      const [range, step] = item.split("/");
      if (step !== undefined && (!/^\d+$/.test(step) || Number(step) < 1)) return `${f.name} field: step '${step}' must be a positive number`;
      if (range === "*" || range === "?") continue;
      const ends = range.includes("-") ? range.split("-") : [range];
      if (ends.length > 2) return `${f.name} field: range ${range} must have two ends, such as 1-5`;
      const nums = ends.map(value);
      const bad = nums.find((n) => typeof n === "string");
      if (bad !== undefined) return bad as string;
      if (nums.length === 2 && (nums[0] as number) > (nums[1] as number)) return `${f.name} field: range ${range} runs backwards`;
    }
  }
  return undefined;
}
