// Pages for a workspace's overview, its projects, environments, services, deploys and cron runs.
import { html, nothing } from "./vendor/lit-html/lit-html.js";
import { badge, card, clock, duration, empty, external, facts, head, icon, plural, short, table, tag, when } from "./kit.js";
import { recentRequests } from "./pages-requests.js";

// ---- overview ----
export function overviewPage(d, ctx) {
  const c = d.counts;
  const stat = (section, ico, label, value, detail) => html`
    <a class="stat" href=${ctx.link(section)} data-stat=${section}>
      <div class="k">${icon(ico)}${label}</div><div class="v">${value}</div><div class="d">${detail}</div>
    </a>`;
  const byStatus = Object.entries(d.servicesByStatus).map(([s, n]) => `${n} ${s.toLowerCase()}`).join(", ") || "none yet";
  return {
    trail: [{ text: "Overview" }],
    body: html`
      ${head(d.workspace.name, html`<span class="mono">${d.workspace.id}</span><span>region ${d.workspace.defaultRegion ?? "default"}</span>`)}
      <div class="stats">
        ${stat("projects", "projects", "Projects", c.projects, plural(c.environments, "environment"))}
        ${stat("projects", "services", "Services", c.services, byStatus)}
        ${stat("dns", "dns", "DNS zones", c.zones, plural(c.records, "record"))}
        ${stat("mail", "mail", "Mail domains", c.mailDomains, `${plural(c.emails, "email")} sent`)}
        ${stat("storage", "storage", "Buckets", c.buckets, plural(c.objects, "object"))}
        ${stat("domains", "domains", "Domains", c.customDomains, "custom, on services")}
        ${stat("sites", "sites", "Static sites", c.sites, "served locally")}
      </div>
      <div class="cols">
        ${card(html`<h2>Recent deploys</h2>`, table(["Service", "Deploy", "Status", "Trigger", "Created"], d.recentDeploys, (x) => html`
          <tr>
            <td><a href=${ctx.link("services", x.service.id)}>${x.service.name}</a>${x.service.environment ? html` <span class="muted small">${x.service.environment}</span>` : nothing}</td>
            <td><a href=${ctx.link("deploys", x.id)}>#${x.seq}</a></td>
            <td>${badge(x.status)}</td>
            <td class="small muted">${x.trigger.toLowerCase().replace("_", " ")}</td>
            <td>${when(x.createdAt, ctx.now)}</td>
          </tr>`, "No deploys yet: a service deploys as soon as it is created."))}
        ${card(html`<h2>Recent emails</h2>`, table(["Message", "Status", "Sent"], d.recentEmails, (m) => html`
          <tr>
            <td><a href=${ctx.link("emails", m.id)}>${m.subject || "(no subject)"}</a><div class="small muted">to ${m.to}</div></td>
            <td>${badge(m.status)} ${m.sandbox ? tag("sandbox") : nothing}</td>
            <td>${when(m.createdAt, ctx.now)}</td>
          </tr>`, "No email sent yet."), html`<a href=${ctx.link("mail")}>Outbox</a>`)}
      </div>
      ${card(html`<h2>Latest requests</h2>`, recentRequests(ctx, 8), html`<a href=${ctx.link("requests")}>All requests</a>`)}`,
  };
}

// ---- projects and environments ----
function servicesTable(services, ctx) {
  return table(["Service", "Status", "Health", "Latest deploy", "Address", "Last live"], services, (s) => html`
    <tr data-service=${s.id}>
      <td><a href=${ctx.link("services", s.id)}><b>${s.name}</b></a> ${tag(s.type)}</td>
      <td>${badge(s.status)}${s.suspension !== "NONE" ? html` ${badge(`SUSPENDED`)}` : nothing}</td>
      <td>${badge(s.health, s.health === "HEALTHY" ? "ok" : undefined)}</td>
      <td>${s.latestDeploy ? html`<a href=${ctx.link("deploys", s.latestDeploy.id)}>#${s.latestDeploy.seq}</a> ${badge(s.latestDeploy.status)}` : html`<span class="muted">—</span>`}</td>
      <td class="mono small nowrap" title=${s.url ?? ""}>${s.site ? html`<a href=${ctx.link("sites", s.id)}>${s.url ?? "site"}</a>` : s.url ?? html`<span class="muted">—</span>`}</td>
      <td>${when(s.lastDeployedAt, ctx.now)}</td>
    </tr>`, "No services in this environment.", "fixed svc");
}

function environmentBlock(e, ctx) {
  return html`
    <div class="env" data-environment=${e.id}>
      <div class="env-head">${icon("layers")}<a href=${ctx.link("environments", e.id)}><b>${e.name}</b></a>
        ${e.kind ? tag(e.kind, true) : nothing}${e.isPreview ? tag("preview") : nothing}
        <span class="right">${plural(e.services.length, "service")}</span></div>
      ${e.services.length ? servicesTable(e.services, ctx) : empty("No services in this environment.")}
    </div>`;
}

function projectCard(p, ctx) {
  return card(
    html`${icon("projects")}<h2><a href=${ctx.link("projects", p.id)}>${p.displayName ?? p.name}</a></h2>
      ${p.description ? html`<span class="muted small">${p.description}</span>` : nothing}`,
    p.environments.length ? p.environments.map((e) => environmentBlock(e, ctx)) : empty("No environments yet."),
    html`<span>${p.region ?? "default region"}</span><span>·</span>${when(p.createdAt, ctx.now)}`,
    { id: p.id },
  );
}

export function projectsPage(d, ctx) {
  return {
    trail: [{ text: "Projects" }],
    body: html`
      ${head("Projects", `${plural(d.projects.length, "project")}, newest first`)}
      ${d.projects.length ? d.projects.map((p) => projectCard(p, ctx))
        : card(null, empty(html`No projects yet. Create one with <code>new cloud.Project("app", {...})</code> or <code>POST /v1/workspaces/{id}/projects</code>.`))}`,
  };
}

export function projectPage(p, ctx) {
  return {
    trail: [{ text: "Projects", href: ctx.link("projects") }, { text: p.name }],
    body: html`
      ${head(p.displayName ?? p.name, html`<span class="mono">${p.id}</span>${p.description ? html`<span>${p.description}</span>` : nothing}`)}
      ${projectCard(p, ctx)}`,
  };
}

export function environmentPage(e, ctx) {
  return {
    trail: [{ text: "Projects", href: ctx.link("projects") }, { text: e.project.name, href: ctx.link("projects", e.project.id) }, { text: e.name }],
    body: html`
      ${head(html`${e.name} ${e.kind ? tag(e.kind, true) : nothing}`, html`<span class="mono">${e.id}</span><span>environment of <a href=${ctx.link("projects", e.project.id)}>${e.project.name}</a></span>`)}
      ${card(html`<h2>Services</h2>`, servicesTable(e.services, ctx))}`,
  };
}

// ---- services ----
function source(s) {
  const src = s.source ?? {};
  if (src.image) return html`<span class="mono">${src.image}</span>`;
  if (src.gitUrl || src.repoFullName) return html`<span class="mono">${src.repoFullName ?? src.gitUrl}</span>${src.branch ? html` <span class="muted">(${src.branch})</span>` : nothing}`;
  if (s.type === "STATIC") return "uploaded files";
  return null;
}

function deploysTable(deploys, ctx) {
  return table(["Deploy", "Status", "Trigger", "Commit", "Created", "#Duration"], deploys, (x) => html`
    <tr data-deploy=${x.id}>
      <td><a href=${ctx.link("deploys", x.id)}><b>#${x.seq}</b></a> <span class="muted mono small">${short(x.id)}</span></td>
      <td>${badge(x.status)}</td>
      <td class="small muted">${x.trigger.toLowerCase().replace("_", " ")}</td>
      <td class="small">${x.commitSha ? html`<span class="mono">${x.commitSha.slice(0, 7)}</span> ${x.commitMessage ?? ""}` : html`<span class="muted">—</span>`}</td>
      <td>${when(x.createdAt, ctx.now)}</td>
      <td class="num small">${duration(x.durationMs)}</td>
    </tr>`, "No deploys yet.");
}

/** Projects / project / environment, then whatever follows. */
const placed = (d, ctx, ...rest) => [
  { text: "Projects", href: ctx.link("projects") },
  ...(d.project ? [{ text: d.project.name, href: ctx.link("projects", d.project.id) }] : []),
  ...(d.environment ? [{ text: d.environment.name, href: ctx.link("environments", d.environment.id) }] : []),
  ...rest,
];

export function servicePage(d, ctx) {
  const s = d.service;
  const trail = placed(d, ctx, { text: s.name });
  const envVars = table(["Key", "Value", "Scope"], d.envVars, (v) => html`
    <tr><td class="mono">${v.key}</td>
      <td class="mono wrap">${v.secret || v.linked ? html`<span class="muted">•••••• hidden</span> ${v.linked ? tag("linked") : tag("secret")}` : v.value}</td>
      <td>${tag(v.scope)}</td></tr>`, "No environment variables.");
  return {
    trail,
    body: html`
      ${head(html`${s.name} ${tag(s.type)}`, html`${badge(s.status)} ${badge(s.health, s.health === "HEALTHY" ? "ok" : undefined)}
          <span class="mono">${s.id}</span>${s.url ? html`<span class="mono">${s.url}</span>` : nothing}`,
        d.site ? html`<a class="btn" href=${ctx.link("sites", s.id)}>${icon("sites")}Site preview</a>${external(d.site.localUrl, "Open site", "btn")}` : nothing)}
      ${card(html`<h2>Settings</h2>`, facts([
        ["Project", d.project ? html`<a href=${ctx.link("projects", d.project.id)}>${d.project.name}</a>` : null],
        ["Environment", d.environment ? html`<a href=${ctx.link("environments", d.environment.id)}>${d.environment.name}</a>` : null],
        ["Region", s.region?.label ?? s.region?.key],
        ["Tier", s.tier ? `${s.tier} · ${s.cpuMillicores} mCPU · ${s.memoryMb} MB` : null],
        ["Source", source(s)],
        ["Runtime", s.runtime ? `${s.runtime}${s.framework ? ` (${s.framework})` : ""}` : null],
        ["Build command", s.build?.buildCommand ? html`<span class="mono">${s.build.buildCommand}</span>` : null],
        ["Start command", s.build?.startCommand ? html`<span class="mono">${s.build.startCommand}</span>` : null],
        ["Port", s.port],
        ["Health check", s.healthCheckPath ? html`<span class="mono">${s.healthCheckPath}</span>` : null],
        s.cron ? ["Schedule", html`<span class="mono">${s.cron.schedule ?? "none"}</span>${s.cron.suspended ? html` ${badge("SUSPENDED")}` : nothing}`] : null,
        s.cron ? ["Command", s.cron.command ? html`<span class="mono">${s.cron.command}</span>` : null] : null,
        ["Created", when(s.createdAt, ctx.now)],
        ["Last live", when(s.lastDeployedAt, ctx.now)],
      ]))}
      ${card(html`<h2>Deploys</h2>`, deploysTable(d.deploys, ctx), `${d.deploys.length} shown, newest first`, { id: "deploys" })}
      ${d.cronRuns ? card(html`<h2>Cron runs</h2>`, table(["Run", "Status", "Trigger", "Exit code", "Started", "Finished"], d.cronRuns, (r) => html`
        <tr data-run=${r.id}>
          <td><a href=${ctx.link("runs", r.id)}><b>#${r.seq}</b></a></td>
          <td>${badge(r.status)}</td>
          <td class="small muted">${r.trigger.toLowerCase()}</td>
          <td class="mono">${r.exitCode ?? "—"}</td>
          <td>${when(r.startedAt, ctx.now)}</td>
          <td>${when(r.finishedAt, ctx.now)}</td>
        </tr>`, "No runs yet: scheduled runs appear as the emulator clock passes their times."), null, { id: "runs" }) : nothing}
      ${d.connection ? card(html`<h2>Connection</h2>`, facts([
        ["Host", html`<span class="mono">${d.connection.host}</span>`], ["Port", d.connection.port],
        ["Database", d.connection.database], ["User", d.connection.username], ["Password", html`<span class="muted">hidden</span>`],
      ])) : nothing}
      <div class="cols">
        ${card(html`<h2>Environment variables</h2>`, envVars, `${d.envVars.length}`, { id: "env" })}
        <div>
          ${card(html`<h2>Secret files</h2>`, table(["Path"], d.secretFiles, (p) => html`<tr><td class="mono">${p} <span class="muted small">(content hidden)</span></td></tr>`, "No secret files."))}
          ${card(html`<h2>Custom domains</h2>`, table(["Domain", "Status", "Verified"], d.customDomains, (x) => html`
            <tr><td><a href=${ctx.link("domains")}>${x.domain}</a></td><td>${badge(x.status)}</td><td>${when(x.verifiedAt, ctx.now)}</td></tr>`, "No custom domains."))}
        </div>
      </div>`,
  };
}

// ---- deploys and runs ----
function logPane(lines, note) {
  return html`<div class="log" data-stick data-log>
    ${lines.map((l) => html`<div class="line ${l.level ?? ""} ${l.stream}"><span class="t">${clock(l.createdAt)}</span><span class="s">${l.stream}</span><span class="m">${l.line}</span></div>`)}
    ${note ? html`<div class="note">${note}</div>` : nothing}
  </div>`;
}

export function deployPage(d, ctx) {
  const x = d.deploy;
  return {
    trail: placed(d, ctx, { text: d.service.name, href: ctx.link("services", d.service.id) }, { text: `Deploy #${x.seq}` }),
    body: html`
      ${head(html`Deploy #${x.seq} of <a href=${ctx.link("services", d.service.id)}>${d.service.name}</a>`, html`${badge(x.status)}<span class="mono">${x.id}</span>`)}
      ${card(html`<h2>Details</h2>`, facts([
        ["Trigger", x.trigger.toLowerCase().replace("_", " ")],
        ["Branch", x.branch], ["Commit", x.commitSha ? html`<span class="mono">${x.commitSha.slice(0, 12)}</span> ${x.commitMessage ?? ""}` : null],
        ["Author", x.authorName],
        ["Build command", x.buildCommand ? html`<span class="mono">${x.buildCommand}</span>` : null],
        ["Start command", x.startCommand ? html`<span class="mono">${x.startCommand}</span>` : null],
        ["Created", when(x.createdAt, ctx.now)], ["Started", when(x.startedAt, ctx.now)], ["Finished", when(x.finishedAt, ctx.now)],
        ["Duration", duration(x.durationMs)],
        x.error ? ["Error", html`<span class="badge bad plain">${x.errorCode}</span> ${x.error}`] : null,
      ]))}
      ${card(html`<h2>Logs</h2>`, logPane(d.logs, d.logsNote), `${plural(d.logs.length, "line")}`, { id: "logs" })}`,
  };
}

export function runPage(d, ctx) {
  const r = d.run;
  return {
    trail: placed(d, ctx, { text: d.service.name, href: ctx.link("services", d.service.id) }, { text: `Run #${r.seq}` }),
    body: html`
      ${head(html`Run #${r.seq} of <a href=${ctx.link("services", d.service.id)}>${d.service.name}</a>`, html`${badge(r.status)}<span class="mono">${r.id}</span>`)}
      ${card(html`<h2>Details</h2>`, facts([
        ["Trigger", r.trigger.toLowerCase()], ["Command", r.command ? html`<span class="mono">${r.command}</span>` : null],
        ["Exit code", r.exitCode], ["Commit", r.commitSha ? html`<span class="mono">${r.commitSha.slice(0, 12)}</span>` : null],
        ["Created", when(r.createdAt, ctx.now)], ["Started", when(r.startedAt, ctx.now)], ["Finished", when(r.finishedAt, ctx.now)],
        r.error ? ["Error", r.error] : null,
      ]))}
      ${card(html`<h2>Logs</h2>`, logPane(d.logs, null), `${plural(d.logs.length, "line")}`, { id: "logs" })}`,
  };
}
