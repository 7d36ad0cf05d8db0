// The report's shapes: one versioned schema, shared by every format, by `merge` and by the email.

/** Bumped when a field changes meaning or goes away; new optional fields keep the version. */
export const SCHEMA_VERSION = 1;

/** One property's difference, as driftctl's changelog has it: `from` is the state, `to` is live. */
export interface Change {
  type: "update" | "create" | "delete";
  path: string[];
  from?: unknown;
  to?: unknown;
  /** Stable: from the stack's name, the URN and the path, never a value (see baseline.ts). */
  findingId?: string;
  /** With --baseline: whether the previous report had it. */
  baseline?: Mark;
}

/** `new`: not in the baseline; `persisting`: in it too; `resolved`: in the baseline, gone now. */
export type Mark = "new" | "persisting" | "resolved";

export interface Finding {
  type: "changed" | "deleted" | "unreadable";
  urn: string;
  /** The resource's type token, e.g. `cloudplatform:index:Service`. */
  resourceType: string;
  id?: string;
  /** changed: each property that differs (empty when the provider names none: see `reason`). */
  changelog?: Change[];
  /** changed with no property named: why it is drift all the same. */
  reason?: string;
  /** changed with no property named: the properties, secret as a whole, where the change may be. */
  hiddenIn?: string[];
  /** unreadable: the provider's error. */
  message?: string;
  /** Stable: from the stack's name and the URN (see baseline.ts). */
  findingId?: string;
  /** With --baseline: `new` when it, or any change in it, is new. */
  baseline?: Mark;
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
  /** With --baseline: the baseline's findings (or changes) this check no longer finds. */
  resolved?: Finding[];
  /** With --unmanaged: the platform objects this stack's state holds (keys as unmanaged objects have them). */
  managed?: string[];
}

/** `missing`: a shard whose report `merge` was not given. */
export type FailureKind = "backend" | "passphrase" | "plugin" | "api" | "unreadable" | "missing" | "other";

export interface Summary {
  stacksChecked: number;
  stacksDrifted: number;
  stacksFailed: number;
  resourcesChecked: number;
  resourcesDrifted: number;
  resourcesUnreadable: number;
  /** With --unmanaged: the objects no checked stack manages. */
  objectsUnmanaged?: number;
}

/** A platform object no checked stack manages (--unmanaged). */
export interface UnmanagedObject {
  /** The resource type that would adopt it: Project, Environment, Service, DnsRecord, EnvVar... */
  kind: string;
  /** `<kind>:<platform id>`, as cloudplatform-adopt names what it finds. */
  key: string;
  /** What `pulumi import` takes for it. */
  importId: string;
  /** Its platform names, outermost first: `shop/production/web`. */
  name: string;
  findingId?: string;
  baseline?: Mark;
}

export interface Unmanaged {
  workspaceId: string;
  /** Objects any checked stack manages, of all it counts (docs/drift.md, "Unmanaged objects"). */
  coverage: { managed: number; total: number; percent: number };
  objects: UnmanagedObject[];
  /** With --baseline: the baseline's unmanaged objects that are managed, or gone, now. */
  resolved?: UnmanagedObject[];
  /** Stacks that could not be checked: objects they manage may be listed here. */
  incomplete?: string[];
  /** Why the workspace could not be listed. */
  error?: string;
}

export interface NotificationResult {
  to: string[];
  status: "sent" | "failed" | "skipped";
  id?: string;
  message?: string;
}

export interface WebhookResult {
  /** The receiver's origin only: a webhook URL's path often is its secret. */
  url: string;
  status: "sent" | "failed" | "skipped";
  attempts: number;
  message?: string;
}

export interface Report {
  schemaVersion: number;
  tool: "cloudplatform-drift";
  generatedAt: string;
  /** `I/N` when this report is one shard of a run. */
  shard?: string;
  summary: Summary;
  stacks: StackReport[];
  /** With --baseline: the previous report and what changed since. */
  baseline?: { generatedAt: string; new: number; persisting: number; resolved: number };
  /** With --unmanaged: what no checked stack manages. */
  unmanaged?: Unmanaged;
  /** The email's outcome, when one was asked for. */
  notification?: NotificationResult;
  /** The webhook's outcome, when one was asked for. */
  webhook?: WebhookResult;
}

/** 0 no drift, 7 drift found (as `--expect-no-changes`), 1 a stack could not be checked (wins over 7). */
export const EXIT = { clean: 0, drift: 7, failed: 1 } as const;
