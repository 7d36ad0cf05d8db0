// The report's shapes: one versioned schema, shared by every format, by `merge` and by the email.

/** Bumped when a field changes meaning or goes away; new optional fields keep the version. */
export const SCHEMA_VERSION = 1;

/** One property's difference, as driftctl's changelog has it: `from` is the state, `to` is live. */
export interface Change {
  type: "update" | "create" | "delete";
  path: string[];
  from?: unknown;
  to?: unknown;
}

export interface Finding {
  type: "changed" | "deleted" | "unreadable";
  urn: string;
  /** The resource's type token, e.g. `cloudplatform:index:Service`. */
  resourceType: string;
  id?: string;
  /** changed: each property that differs. */
  changelog?: Change[];
  /** unreadable: the provider's error. */
  message?: string;
}

/** What `--plan` adds: the step `up` would take per resource. */
export interface PlannedStep {
  urn: string;
  resourceType: string;
  op: string;
}

export interface Remediation {
  status: "restored" | "refused" | "failed" | "skipped";
  /** URNs `up` updated (restored) or would have replaced or deleted (refused). */
  resources: { urn: string; op: string }[];
  message?: string;
}

export interface StackReport {
  /** `org/project/stack` as the backend names it. */
  name: string;
  project: string;
  stack: string;
  /** The backend URL, credentials left out. */
  backend?: string;
  status: "clean" | "drifted" | "failed";
  /** Why the stack could not be checked (status failed). */
  error?: { kind: FailureKind; message: string };
  resourcesChecked: number;
  findings: Finding[];
  plan?: { steps: PlannedStep[]; error?: string };
  remediation?: Remediation;
  durationMs: number;
}

export type FailureKind = "backend" | "passphrase" | "plugin" | "api" | "unreadable" | "other";

export interface Summary {
  stacksChecked: number;
  stacksDrifted: number;
  stacksFailed: number;
  resourcesChecked: number;
  resourcesDrifted: number;
  resourcesUnreadable: number;
}

export interface Report {
  schemaVersion: number;
  tool: "cloudplatform-drift";
  generatedAt: string;
  /** `I/N` when this report is one shard of a run. */
  shard?: string;
  summary: Summary;
  stacks: StackReport[];
  /** The notification's outcome, when one was asked for. */
  notification?: { to: string[]; status: "sent" | "failed"; id?: string; message?: string };
}

/** 0 no drift, 7 drift found (as `--expect-no-changes`), 1 a stack could not be checked (wins over 7). */
export const EXIT = { clean: 0, drift: 7, failed: 1 } as const;
