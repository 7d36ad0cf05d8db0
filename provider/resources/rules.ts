// Input rules shared by several resources, written once so check messages read the same everywhere.
import { z } from "zod";
import { parseDuration } from "./waiter";

export const NAME_RULE = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;
export const name = (what: string) =>
  z
    .string({ error: "must be a string" })
    .regex(NAME_RULE, "must be 1 to 64 characters: letters, digits, spaces, '.', '_' or '-', starting with a letter or digit")
    .describe(what);

export const id = (what: string) => z.string({ error: "must be a string id" }).min(1, "must not be empty").describe(what);

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
    .describe(what);
