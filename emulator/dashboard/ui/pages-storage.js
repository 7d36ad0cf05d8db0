// Pages for buckets and their objects, custom domains, and static sites (shown in a frame).
import { html, nothing } from "./vendor/lit-html/lit-html.js";
import { keyed } from "./vendor/lit-html/directives/keyed.js";
import { badge, bytes, card, empty, external, head, icon, plural, short, table, tag, when } from "./kit.js";

// ---- buckets ----
export function storagePage(d, ctx) {
  return {
    trail: [{ text: "Storage" }],
    body: html`
      ${head("Storage", `${plural(d.buckets.length, "bucket")}`)}
      ${card(html`${icon("storage")}<h2>Buckets</h2>`, table(["Bucket", "Region", "Visibility", "#Objects", "#Size", "Rules", "Endpoint", "Created"], d.buckets, (b) => html`
        <tr data-bucket=${b.id}>
          <td><a href=${ctx.link("buckets", b.id)}><b>${b.name}</b></a></td>
          <td>${b.region}</td>
          <td>${badge(b.visibility, b.visibility === "PUBLIC_READ" ? "warn" : "idle")}</td>
          <td class="num">${b.objects}</td>
          <td class="num">${bytes(b.bytes)}</td>
          <td class="small">${b.corsRules ? tag(`${b.corsRules} CORS`) : nothing} ${b.policy ? tag("policy") : nothing}</td>
          <td class="mono wrap small">${b.endpoint}</td>
          <td>${when(b.createdAt, ctx.now)}</td>
        </tr>`, html`No buckets yet. Create one with <code>new cloud.Bucket("uploads", {})</code>.`), null, { id: "buckets" })}
      ${card(html`<h2>Storage access keys</h2>`, table(["Name", "Access key id", "Created"], d.accessKeys, (k) => html`
        <tr><td>${k.name}</td><td class="mono">${k.accessKeyId}</td><td>${when(k.createdAt, ctx.now)}</td></tr>`, "No storage access keys."),
        "secrets are never shown here")}`,
  };
}

/** The next path segment of each key under the prefix: the bucket's "folders" at this level. */
function folders(objects, prefix) {
  const out = new Map();
  for (const o of objects) {
    const rest = o.key.slice(prefix.length);
    const cut = rest.indexOf("/");
    if (cut > 0) out.set(rest.slice(0, cut + 1), (out.get(rest.slice(0, cut + 1)) ?? 0) + 1);
  }
  return [...out];
}

export function bucketPage(d, ctx) {
  const b = d.bucket;
  const prefix = ctx.route.query.prefix ?? "";
  const download = (key) => `/_emulator/ui/api/buckets/${encodeURIComponent(b.id)}/object?key=${encodeURIComponent(key)}`;
  const up = prefix.replace(/[^/]*\/?$/, "");
  return {
    trail: [{ text: "Storage", href: ctx.link("storage") }, { text: b.name }],
    body: html`
      ${head(b.name, html`${badge(b.visibility, b.visibility === "PUBLIC_READ" ? "warn" : "idle")}<span>${b.region}</span><span class="mono">${b.endpoint}</span>`)}
      ${card(html`<h2>Objects</h2>`, html`
        <div class="card-body toolbar">
          <input type="search" placeholder="Filter by key prefix, e.g. images/" .value=${prefix} data-prefix
            @input=${(e) => ctx.actions.setQuery({ prefix: e.target.value })}>
          ${prefix ? html`<button class="btn" @click=${() => ctx.actions.setQuery({ prefix: up })}>Up one level</button>` : nothing}
          ${folders(d.objects, d.prefix).map(([f, n]) => html`
            <button class="btn" @click=${() => ctx.actions.setQuery({ prefix: d.prefix + f })}>${icon("projects")}${f} <span class="muted">${n}</span></button>`)}
          <span class="muted small" style="margin-left:auto">${d.prefix ? `${d.matching} of ${d.total} objects` : plural(d.total, "object")} · ${bytes(d.bytes)}</span>
        </div>
        ${table(["Key", "#Size", "Type", "Modified", "ETag", ""], d.objects, (o) => html`
          <tr data-object=${o.key}>
            <td class="mono wrap">${o.key}</td>
            <td class="num">${bytes(o.size)}</td>
            <td class="small muted">${o.contentType}</td>
            <td>${when(o.lastModified, ctx.now)}</td>
            <td class="mono small muted">${o.etag.slice(0, 10)}</td>
            <td><a class="btn" href=${download(o.key)} title="Download">${icon("download")}</a></td>
          </tr>`, d.prefix ? `No object key starts with '${d.prefix}'.` : "The bucket is empty.")}
        ${d.matching > d.objects.length ? html`<div class="empty">Showing the first ${d.objects.length}; narrow the prefix to see the rest.</div>` : nothing}`,
        null, { id: "objects" })}
      <div class="cols">
        ${card(html`<h2>CORS rules</h2>`, table(["Methods", "Origins", "Headers", "#Max age"], b.corsRules, (r) => html`
          <tr><td>${r.allowedMethods.map((m) => html`${tag(m)} `)}</td><td class="mono small wrap">${r.allowedOrigins.join(", ")}</td>
            <td class="mono small wrap">${(r.allowedHeaders ?? []).join(", ") || "—"}</td><td class="num">${r.maxAgeSeconds ?? "—"}</td></tr>`, "No CORS rules."))}
        ${card(html`<h2>Policy</h2>`, b.policy ? html`<pre class="block">${pretty(b.policy)}</pre>` : empty("No bucket policy."))}
      </div>`,
  };
}

function pretty(json) {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

// ---- custom domains ----
export function domainsPage(d, ctx) {
  return {
    trail: [{ text: "Custom domains" }],
    body: html`
      ${head("Custom domains", plural(d.domains.length, "domain"))}
      ${card(null, table(["Domain", "Service", "Status", "DNS record to publish", "Conflicts", "Last check", "Verified"], d.domains, (x) => html`
        <tr data-domain=${x.domain}>
          <td><b>${x.domain}</b>${x.dnsTarget.isApex ? html` ${tag("apex")}` : nothing}</td>
          <td>${x.service ? html`<a href=${ctx.link(x.service.type === "STATIC" ? "sites" : "services", x.service.id)}>${x.service.name}</a>` : "—"}</td>
          <td>${badge(x.status)}</td>
          <td class="mono small wrap">${x.dnsTarget.records.map((r) => html`<div>${r.type} ${r.fqdn} → ${r.content}</div>`)}</td>
          <td>${x.dnsTarget.conflicts.length ? html`${x.dnsTarget.conflicts.map((c) => html`<div>${badge(`${c.type} ${c.content}`, "bad")}</div>`)}` : html`<span class="muted">none</span>`}</td>
          <td class="small wrap">${x.lastCheck ?? html`<span class="muted">not checked yet</span>`}</td>
          <td>${when(x.verifiedAt, ctx.now)}</td>
        </tr>`, html`No custom domains yet. <code>new cloud.VerifiedCustomDomain(...)</code> attaches one to a web service.`))}`,
  };
}

// ---- static sites ----
/** The site in a sandboxed frame: its scripts run, but not with the dashboard's origin. A new live deploy gets a new frame. */
const siteFrame = (path, liveDeploy, lazy = false) =>
  keyed(liveDeploy ?? "none", html`<iframe src=${path} title="Site preview" sandbox="allow-scripts allow-forms allow-popups" loading=${lazy ? "lazy" : "eager"}></iframe>`);

export function sitesPage(d, ctx) {
  return {
    trail: [{ text: "Static sites" }],
    body: html`
      ${head("Static sites", `${plural(d.sites.length, "site")}, served by the emulator at /_sites/…`)}
      ${d.sites.length ? html`<div class="sites">${d.sites.map((s) => html`
        <section class="card site-card" data-site=${s.id}>
          <div class="thumb">${s.latestDeploy ? siteFrame(s.path, s.latestDeploy.id, true) : nothing}</div>
          <div class="card-body">
            <div><a href=${ctx.link("sites", s.id)}><b>${s.name}</b></a> ${badge(s.latestDeploy?.status ?? s.status)}</div>
            <div class="small muted">${s.project?.name ?? ""}${s.environment ? ` / ${s.environment.name}` : ""} · ${plural(s.files, "file")} · ${bytes(s.bytes)}</div>
            <div class="small">${external(s.localUrl, s.path)}</div>
            ${s.customDomains.length ? html`<div>${s.customDomains.map((c) => html`${tag(c.domain)} `)}</div>` : nothing}
          </div>
        </section>`)}</div>`
        : card(null, empty(html`No static sites yet. <code>new cloud.StaticSite("site", { path: "./public" })</code> publishes a folder.`))}`,
  };
}

export function sitePage(d, ctx) {
  const s = d.site;
  const live = d.deploys.find((x) => x.status === "RUNNING");
  return {
    trail: [{ text: "Static sites", href: ctx.link("sites") }, { text: s.name }],
    body: html`
      ${head(s.name, html`${badge(live ? "LIVE" : s.status)}<span class="mono">${s.id}</span>${s.url ? html`<span class="mono">${s.url}</span>` : nothing}`,
        html`<a class="btn" href=${ctx.link("services", s.id)}>${icon("services")}Service</a>${external(s.localUrl, "Open in a new tab", "btn")}`)}
      ${card(html`${icon("sites")}<h2>Preview</h2>`, html`
        <div class="frame-wrap"><div class="browser">
          <div class="bar"><i></i><i></i><i></i><span class="url">${s.localUrl}</span></div>
          ${live ? siteFrame(s.path, live.id) : html`<div class="empty">No deploy is live yet.</div>`}
        </div></div>`, live ? html`live deploy <a href=${ctx.link("deploys", live.id)}>#${live.seq}</a>` : null, { id: "preview" })}
      <div class="cols">
        ${card(html`<h2>Files</h2>`, table(["Path", "#Size", "Type"], s.files, (f) => html`
          <tr><td class="mono wrap">${f.path}${f.path === s.indexPath ? html` ${tag("index", true)}` : nothing}</td><td class="num">${bytes(f.size)}</td><td class="small muted">${f.contentType.split(";")[0]}</td></tr>`,
          "No files live."), s.spaFallback ? "SPA fallback on" : null)}
        ${card(html`<h2>Deploys</h2>`, table(["Deploy", "Status", "Created"], d.deploys, (x) => html`
          <tr><td><a href=${ctx.link("deploys", x.id)}>#${x.seq}</a> <span class="muted mono small">${short(x.id)}</span></td><td>${badge(x.status)}</td><td>${when(x.createdAt, ctx.now)}</td></tr>`))}
      </div>
      ${d.customDomains.length ? card(html`<h2>Custom domains</h2>`, table(["Domain", "Status"], d.customDomains, (c) => html`
        <tr><td><a href=${ctx.link("domains")}>${c.domain}</a></td><td>${badge(c.status)}</td></tr>`)) : nothing}`,
  };
}
