// Small building blocks shared by the pages: formatting, status badges, icons, tables, links.
import { html, nothing } from "./vendor/lit-html/lit-html.js";

// ---- formatting ----
export function bytes(n) {
  if (n === null || n === undefined) return "—";
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i += 1; }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export function duration(ms) {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** "5 s ago", against the emulator's clock (which tests may move). */
export function ago(iso, nowMs) {
  if (!iso) return "—";
  const s = Math.round((nowMs - Date.parse(iso)) / 1000);
  if (s < 0) return s > -60 ? `in ${-s} s` : `in ${Math.round(-s / 60)} min`;
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

export const when = (iso, nowMs) => (iso ? html`<span class="nowrap" title=${iso}>${ago(iso, nowMs)}</span>` : html`<span class="muted">—</span>`);
export const clock = (iso) => (iso ? new Date(iso).toISOString().slice(11, 19) : "");
export const short = (id) => (id ? id.slice(0, 8) : "");
export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// ---- statuses ----
const TONES = {
  ok: ["RUNNING", "ACTIVE", "HEALTHY", "VERIFIED", "SUCCEEDED", "PUBLISHED", "LIVE", "delivered", "sent"],
  run: ["QUEUED", "BUILDING", "DEPLOYING", "PROVISIONING", "queued", "RUNNING_JOB"],
  warn: ["PENDING", "UNKNOWN", "MISSING", "SUSPENDED", "UNVERIFIED", "STOPPED"],
  bad: ["FAILED", "ERROR", "BROKEN", "CRASH_LOOPING", "bounced", "complained", "rejected"],
  idle: ["CANCELLED", "SUPERSEDED", "REPLACED", "NONE"],
};
const TONE_OF = Object.fromEntries(Object.entries(TONES).flatMap(([tone, names]) => names.map((n) => [n, tone])));

export function badge(status, tone) {
  if (!status) return nothing;
  const label = /^[A-Z_]+$/.test(status) ? status.replace(/_/g, " ").toLowerCase() : status;
  return html`<span class="badge ${tone ?? TONE_OF[status] ?? "idle"}" data-status=${status}>${label}</span>`;
}

export const tag = (text, accent = false) => html`<span class="tag ${accent ? "accent" : ""}">${text}</span>`;

// ---- icons (24 px strokes) ----
const ICONS = {
  overview: "M3.5 3.5h7v7h-7zM13.5 3.5h7v7h-7zM13.5 13.5h7v7h-7zM3.5 13.5h7v7h-7z",
  projects: "M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z",
  layers: "M12 3l9 5-9 5-9-5zM3 13l9 5 9-5",
  dns: "M12 3a9 9 0 1 0 0 18 9 9 0 1 0 0-18zM3.5 12h17M12 3c3 3.4 3 14.6 0 18M12 3c-3 3.4-3 14.6 0 18",
  mail: "M3.5 5.5h17v13h-17zM3.5 6.5l8.5 6.5 8.5-6.5",
  storage: "M4 6c0-1.7 3.6-3 8-3s8 1.3 8 3-3.6 3-8 3-8-1.3-8-3zM4 6v12c0 1.7 3.6 3 8 3s8-1.3 8-3V6M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3",
  domains: "M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1",
  sites: "M3 5h18v14H3zM3 9h18M6 7h.01M9 7h.01",
  requests: "M3 12h4l3-8 4 16 3-8h4",
  services: "M4 4h16v6H4zM4 14h16v6H4zM8 7h.01M8 17h.01",
  cloud: "M7 18a5 5 0 0 1-.6-10A6 6 0 0 1 17.8 9 4.5 4.5 0 0 1 17.5 18z",
  pause: "M8 5v14M16 5v14",
  play: "M7 4l13 8-13 8z",
  download: "M12 4v11M7 10l5 5 5-5M5 20h14",
};

export const icon = (name) =>
  html`<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d=${ICONS[name] ?? ""}></path></svg>`;

// ---- layout pieces ----
/** A page head: title, a line of facts under it, and actions on the right. */
export const head = (title, sub = nothing, actions = nothing) => html`
  <div class="head">
    <div><h1>${title}</h1>${sub === nothing ? nothing : html`<div class="sub">${sub}</div>`}</div>
    ${actions === nothing ? nothing : html`<div class="actions">${actions}</div>`}
  </div>`;

export const card = (title, body, right = nothing, attrs = {}) => html`
  <section class="card" data-card=${attrs.id ?? nothing}>
    ${title === null ? nothing : html`<div class="card-head">${title}${right === nothing || right == null ? nothing : html`<div class="right">${right}</div>`}</div>`}
    ${body}
  </section>`;

export const empty = (text) => html`<div class="empty">${text}</div>`;

/** A definition grid of label/value pairs; null values show as a dash. */
export const facts = (pairs) => html`
  <dl class="kv card-body">
    ${pairs.filter(Boolean).map(([k, v]) => html`<div><dt>${k}</dt><dd>${v === null || v === undefined || v === "" ? html`<span class="muted">—</span>` : v}</dd></div>`)}
  </dl>`;

/** A table, or a sentence when there are no rows. */
export function table(columns, rows, row, emptyText = "Nothing yet.", cls = "") {
  if (!rows.length) return empty(emptyText);
  return html`
    <table class=${cls}>
      <thead><tr>${columns.map((c) => html`<th class=${c.startsWith("#") ? "num" : ""}>${c.replace(/^#/, "")}</th>`)}</tr></thead>
      <tbody>${rows.map(row)}</tbody>
    </table>`;
}

export const external = (href, text = href, cls = "nowrap") =>
  html`<a href=${href} target="_blank" rel="noopener noreferrer" class=${cls}>${text} <span class="ext">↗</span></a>`;
