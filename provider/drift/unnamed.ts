// "Changed" with no property to name. The engine marks a refreshed resource `update` when its
// provider's Diff says something changed; a provider may say so and name nothing (Pulumi's dynamic
// provider host sends the engine only `changes`), and a property that is secret as a whole in state
// hides every value inside it. Such a resource is drifted all the same: the finding says so, with
// the reason and the properties the change may hide in, and the stack counts as drifted.
import type { StepEventMetadata } from "@pulumi/pulumi/automation";
import { DRIFT_OUTPUT } from "../keyed";
import type { Finding } from "./types";

/** A value that is, or holds, a secret: "[secret]" as the events show it, or a value still marked by its signature. */
function hidesSecret(v: unknown): boolean {
  if (v === "[secret]") return true;
  if (!v || typeof v !== "object") return false;
  if ("4dabf18193072939515e22adb298388d" in v) return true;
  return Object.values(v).some(hidesSecret);
}

/**
 * Why an `update` step whose inputs show no difference is drift, or undefined when the engine or the
 * provider's read named properties (all of them ones the program leaves to the platform: not drift).
 */
export function unnamedChange(m: StepEventMetadata): Pick<Finding, "reason" | "hiddenIn"> | undefined {
  if (Object.keys(m.detailedDiff ?? {}).length || m.diffs?.length) return undefined;
  // The provider's read named what changed (its hidden output), and each is an input the program
  // leaves to the platform (the changelog dropped them all): not drift either.
  const named = (m.new?.outputs as Record<string, unknown> | undefined)?.[DRIFT_OUTPUT];
  if (Array.isArray(named) && named.length) return undefined;
  const olds = (m.old?.inputs ?? {}) as Record<string, unknown>;
  const news = (m.new?.inputs ?? {}) as Record<string, unknown>;
  const hiddenIn = Object.keys(olds).filter((k) => !k.startsWith("__") && (hidesSecret(olds[k]) || hidesSecret(news[k]))).sort();
  if (!hiddenIn.length) {
    // Only outputs the program does not set as inputs moved (a description set by hand on a
    // project that declares none; timestamps): `up` leaves them alone, so not drift.
    const was = (m.old?.outputs ?? {}) as Record<string, unknown>;
    const now = (m.new?.outputs ?? {}) as Record<string, unknown>;
    const moved = [...new Set([...Object.keys(was), ...Object.keys(now)])].filter((k) => !k.startsWith("__") && JSON.stringify(was[k]) !== JSON.stringify(now[k]));
    if (moved.length && moved.every((k) => !(k in olds))) return undefined;
    return { reason: "the provider reports a change and names no property" };
  }
  const list = hiddenIn.join(", ");
  return {
    reason: `the provider names no property; ${list} ${hiddenIn.length === 1 ? "is" : "are"} secret as a whole in state`,
    hiddenIn,
  };
}

/** An unnamed change is under ignoreChanges only when every property it may hide in is. */
export function unnamedIgnored(f: Finding, ignoreChanges: string[]): boolean {
  if (ignoreChanges.includes("*")) return true;
  return !!f.hiddenIn?.length && f.hiddenIn.every((p) => ignoreChanges.includes(p));
}
