// The dashboard's shell: hash routes, the polling loop and the frame around each page. Every
// page is re-rendered from fresh JSON each tick; lit-html changes only what differs, so scroll
// positions, open sections, inputs, focus and frames stay as the user left them.
import { html, nothing, render } from "./vendor/lit-html/lit-html.js";
import { icon, short } from "./kit.js";
import { deployPage, environmentPage, overviewPage, projectPage, projectsPage, runPage, servicePage } from "./pages-infra.js";
import { dnsPage, emailPage, mailPage, zonePage } from "./pages-network.js";
import { bucketPage, domainsPage, sitePage, sitesPage, storagePage } from "./pages-storage.js";
import { requestsPage } from "./pages-requests.js";

const API = "/_emulator/ui/api/";
const POLL_MS = 1500;
const KEEP_REQUESTS = 1_000; // as many as the emulator keeps

/** section (and whether an id follows) -> what to fetch and how to show it; `nav` is the sidebar entry it lights. */
const PAGES = {
  overview: { api: (r) => `workspaces/${r.ws}`, view: overviewPage, nav: "overview" },
  projects: { api: (r) => `workspaces/${r.ws}/projects`, view: projectsPage, nav: "projects" },
  "projects/:id": { api: (r) => `projects/${r.id}`, view: projectPage, nav: "projects" },
  "environments/:id": { api: (r) => `environments/${r.id}`, view: environmentPage, nav: "projects" },
  "services/:id": { api: (r) => `services/${r.id}`, view: servicePage, nav: "projects" },
  "deploys/:id": { api: (r) => `deploys/${r.id}`, view: deployPage, nav: "projects" },
  "runs/:id": { api: (r) => `cron-runs/${r.id}`, view: runPage, nav: "projects" },
  dns: { api: (r) => `workspaces/${r.ws}/dns`, view: dnsPage, nav: "dns" },
  "dns/:id": { api: (r) => `zones/${r.id}`, view: zonePage, nav: "dns" },
  mail: { api: (r) => `workspaces/${r.ws}/mail`, view: mailPage, nav: "mail" },
  "emails/:id": { api: (r) => `emails/${r.id}`, view: emailPage, nav: "mail" },
  storage: { api: (r) => `workspaces/${r.ws}/storage`, view: storagePage, nav: "storage" },
  "buckets/:id": { api: (r) => `buckets/${r.id}?prefix=${encodeURIComponent(r.query.prefix ?? "")}`, view: bucketPage, nav: "storage" },
  domains: { api: (r) => `workspaces/${r.ws}/domains`, view: domainsPage, nav: "domains" },
  sites: { api: (r) => `workspaces/${r.ws}/sites`, view: sitesPage, nav: "sites" },
  "sites/:id": { api: (r) => `sites/${r.id}`, view: sitePage, nav: "sites" },
  requests: { api: null, view: requestsPage, nav: "requests" },
};

const NAV = [
  ["overview", "Overview", "overview", null],
  ["projects", "Projects", "projects", (c) => c.projects],
  ["dns", "DNS", "dns", (c) => c.zones],
  ["mail", "Mail", "mail", (c) => c.mailDomains],
  ["storage", "Storage", "storage", (c) => c.buckets],
  ["domains", "Custom domains", "domains", (c) => c.customDomains],
  ["sites", "Static sites", "sites", (c) => c.sites],
  null,
  ["requests", "Requests", "requests", null],
];

const state = {
  route: parseHash(),
  summary: null,
  /** The current page's data, with the route key it was fetched for. */
  page: { key: null, base: null, data: null, error: null },
  requests: [],
  lastSeq: 0,
  paused: false,
  offline: false,
  updatedAt: 0,
  /** Per-page UI choices that survive refreshes (tabs, filters). */
  ui: { requestFilter: "", hideControl: false, errorsOnly: false, emailTab: "html" },
};

function parseHash() {
  const raw = location.hash.replace(/^#/, "");
  const [path, qs] = raw.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const query = Object.fromEntries(new URLSearchParams(qs ?? ""));
  if (parts[0] !== "w" || !parts[1]) return { ws: null, section: "overview", id: null, query, key: raw, base: "" };
  const section = parts[2] ?? "overview";
  const id = parts[3] ?? null;
  return { ws: parts[1], section, id, query, key: raw, base: path, page: PAGES[id ? `${section}/:id` : section] };
}

function link(ws, section, id, query) {
  const qs = query ? new URLSearchParams(query).toString() : "";
  return `#/w/${encodeURIComponent(ws)}/${section}${id ? `/${encodeURIComponent(id)}` : ""}${qs ? `?${qs}` : ""}`;
}

async function getJSON(path) {
  const res = await fetch(API + path, { cache: "no-store" });
  // An emulator shared with a control token: sign in, then come back to this page.
  if (res.status === 401) location.replace(`/_emulator/ui/sign-in.html${location.hash}`);
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = new Error(Array.isArray(body.message) ? body.message.join("; ") : body.message ?? `HTTP ${res.status}`);
    err.status = res.status;
    throw err;
  }
  return body;
}

let timer = 0;
let inFlight = null;
let again = false;

/** One refresh: the summary, the page's data and the new log lines. */
async function refresh() {
  const route = state.route;
  const pageCall = route.page?.api && route.ws ? getJSON(route.page.api(route)) : Promise.resolve(null);
  const [summary, page, requests] = await Promise.allSettled([getJSON("summary"), pageCall, getJSON(`requests?after=${state.lastSeq}`)]);
  state.offline = summary.status === "rejected" && !summary.reason.status;
  if (summary.status === "fulfilled") {
    state.summary = summary.value;
    state.updatedAt = Date.now();
    // No workspace chosen, or one the emulator no longer has (restarted without --state): the first one.
    const known = summary.value.workspaces.some((w) => w.id === route.ws);
    if (!known && summary.value.workspaces.length) location.replace(link(summary.value.workspaces[0].id, "overview"));
  }
  if (requests.status === "fulfilled") {
    if (requests.value.last < state.lastSeq) state.requests = []; // the emulator restarted
    state.requests = [...state.requests, ...requests.value.entries].slice(-KEEP_REQUESTS);
    state.lastSeq = requests.value.last;
  }
  // A route changed while the calls were out: their page data belongs to the old one.
  if (route.key !== state.route.key) return;
  if (page.status === "fulfilled") state.page = { key: route.key, base: route.base, data: page.value, error: null };
  else if (!state.offline) state.page = { key: route.key, base: route.base, data: null, error: page.reason };
}

async function tick() {
  clearTimeout(timer);
  if (inFlight) {
    again = true;
    return;
  }
  inFlight = refresh();
  try {
    await inFlight;
  } catch (err) {
    console.error(err);
  } finally {
    inFlight = null;
    draw();
    if (again) {
      again = false;
      tick();
    } else schedule();
  }
}

function schedule() {
  clearTimeout(timer);
  if (!state.paused && !document.hidden) timer = setTimeout(tick, POLL_MS);
}

const actions = {
  setUi: (patch) => {
    Object.assign(state.ui, patch);
    draw();
  },
  go: (hash) => { location.hash = hash; },
  /** Changes the query of the page shown without a history entry (filters typed into the page). */
  setQuery: (query) => {
    const r = state.route;
    location.replace(link(r.ws, r.section, r.id, Object.fromEntries(Object.entries(query).filter(([, v]) => v))));
  },
};

function togglePause() {
  state.paused = !state.paused;
  if (state.paused) clearTimeout(timer);
  else tick();
  draw();
}

// ---- drawing ----
function sideBar(route, summary) {
  const ws = summary?.workspaces.find((w) => w.id === route.ws);
  const counts = ws?.counts ?? {};
  const active = route.page?.nav ?? "overview";
  return html`
    <aside class="side">
      <div class="brand"><span class="logo">${icon("cloud")}</span><span><b>cloudplatform</b><small>local emulator</small></span></div>
      <div class="ws-pick">
        <label for="ws">Workspace</label>
        <select id="ws" @change=${(e) => actions.go(link(e.target.value, route.page?.nav === "requests" ? "requests" : "overview"))}>
          ${(summary?.workspaces ?? []).map((w) => html`<option value=${w.id} ?selected=${w.id === route.ws}>${w.name}</option>`)}
        </select>
      </div>
      <ul class="nav">
        ${NAV.map((n) => n === null ? html`<li class="sep"></li>` : html`
          <li><a href=${route.ws ? link(route.ws, n[0]) : "#"} class=${active === n[0] ? "on" : ""} data-nav=${n[0]}>
            ${icon(n[2])}<span>${n[1]}</span>${n[3] ? html`<span class="count">${n[3](counts) ?? 0}</span>` : nothing}
          </a></li>`)}
      </ul>
      <div class="side-foot">
        <div><span>Emulator clock</span><span>${summary ? summary.emulator.now.slice(11, 19) : "—"}</span></div>
        <div><span>Speed</span><span>${summary ? `${summary.emulator.speed}×` : "—"}</span></div>
      </div>
    </aside>`;
}

function liveBadge() {
  const cls = state.offline ? "offline" : state.paused ? "paused" : "";
  const text = state.offline ? "Emulator unreachable, retrying" : state.paused ? "Paused" : "Live";
  return html`
    <div class="live ${cls}" data-live=${cls || "live"}>
      <span class="dot"></span><span>${text}</span>
      <button class="btn" @click=${togglePause} title=${state.paused ? "Resume live refresh" : "Pause live refresh"}>
        ${icon(state.paused ? "play" : "pause")}${state.paused ? "Resume" : "Pause"}
      </button>
    </div>`;
}

function crumbsOf(trail) {
  return html`<nav class="crumbs">${trail.map((c, i) => html`
    ${i ? html`<span class="slash">/</span>` : nothing}
    ${c.href && i < trail.length - 1 ? html`<a href=${c.href}>${c.text}</a>` : html`<span class=${i === trail.length - 1 ? "cur" : ""}>${c.text}</span>`}`)}
  </nav>`;
}

function pageBody(route) {
  const ctx = {
    route,
    ui: state.ui,
    actions,
    link: (section, id, query) => link(route.ws, section, id, query),
    now: state.summary ? Date.parse(state.summary.emulator.now) + (Date.now() - state.updatedAt) : Date.now(),
    requests: state.requests,
  };
  if (!route.page) return { trail: [], body: html`<div class="card"><div class="empty">No such page. <a href=${link(route.ws, "overview")}>Back to the overview</a></div></div>` };
  if (route.page.api === null) return route.page.view(null, ctx);
  // Same page with another query (a bucket's prefix): keep showing the last data until the new arrives.
  const current = state.page.key === route.key || (state.page.base === route.base && state.page.data) ? state.page : { data: null, error: null };
  if (current.error) {
    const gone = current.error.status === 404;
    return {
      trail: [],
      body: html`<div class="card"><div class="empty">${gone ? `This no longer exists: ${current.error.message}.` : `The emulator answered: ${current.error.message}`}
        <a href=${link(route.ws, route.page.nav)}>Back to the list</a></div></div>`,
    };
  }
  if (!current.data) return { trail: [], body: html`<div class="card"><div class="empty">Loading…</div></div>` };
  return route.page.view(current.data, ctx);
}

/** Log panes that were scrolled to their end stay at the end as lines arrive. */
function stuckPanes() {
  return [...document.querySelectorAll("[data-stick]")].filter((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 8);
}

let booted = false;

function draw() {
  const root = document.getElementById("app");
  if (!booted) {
    root.textContent = ""; // the "Loading" line the page is served with
    booted = true;
  }
  const route = state.route;
  const stuck = stuckPanes();
  const { trail, body } = pageBody(route);
  const wsName = state.summary?.workspaces.find((w) => w.id === route.ws)?.name;
  const fullTrail = route.ws ? [{ text: wsName ?? short(route.ws), href: link(route.ws, "overview") }, ...trail] : trail;
  render(html`
    <div class="shell">
      ${sideBar(route, state.summary)}
      <main class="main">
        <header class="topbar">${crumbsOf(fullTrail)}${liveBadge()}</header>
        <div class="content">
          ${state.offline ? html`<div class="banner">The emulator does not answer. The page shows what it last saw and keeps trying.</div>` : nothing}
          ${body}
        </div>
      </main>
    </div>`, root);
  for (const el of stuck) el.scrollTop = el.scrollHeight;
  document.title = `${trail.at(-1)?.text ?? "Dashboard"} · cloudplatform emulator`;
}

window.addEventListener("hashchange", () => {
  const before = state.route;
  state.route = parseHash();
  if (before.section !== state.route.section || before.id !== state.route.id) window.scrollTo(0, 0);
  draw();
  tick();
});
document.addEventListener("visibilitychange", () => (document.hidden ? clearTimeout(timer) : tick()));

draw();
tick();
