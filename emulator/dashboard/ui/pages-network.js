// Pages for DNS zones and records, mail sending domains, suppressions and the email outbox.
import { html, nothing } from "./vendor/lit-html/lit-html.js";
import { badge, bytes, card, empty, facts, head, icon, plural, table, tag, when } from "./kit.js";

// ---- DNS ----
function recordsTable(records) {
  return table(["Name", "Type", "Content", "#TTL", "Origin"], records, (r) => html`
    <tr data-record=${r.id}>
      <td class="mono">${r.name}</td>
      <td>${tag(r.type, true)}</td>
      <td class="mono wrap">${r.priority !== null && r.priority !== undefined ? html`<span class="muted">${r.priority}</span> ` : nothing}${r.content}</td>
      <td class="num mono">${r.ttl}</td>
      <td>${tag(r.origin ?? "USER")}</td>
    </tr>`, "No records yet.");
}

function zoneCard(z, ctx) {
  const proof = z.verificationRecord;
  return card(
    html`${icon("dns")}<h2><a href=${ctx.link("dns", z.id)}>${z.name}</a></h2>${badge(z.published ? "PUBLISHED" : "UNVERIFIED")}`,
    html`
      ${proof ? html`<div class="card-body small">
        <div>Prove ownership: point the nameservers at the platform, or publish
          <span class="mono">${proof.type} ${proof.name}</span> = <span class="mono">${proof.value}</span></div>
        ${z.lastError ? html`<div class="muted" style="margin-top:4px">Last check: ${z.lastError}</div>` : nothing}
      </div>` : nothing}
      ${recordsTable(z.records)}`,
    html`${z.published ? html`<span>verified by ${z.verificationMethod ?? "—"}</span><span>·</span>` : nothing}<span>${plural(z.records.length, "record")}</span>`,
    { id: z.id },
  );
}

export function dnsPage(d, ctx) {
  return {
    trail: [{ text: "DNS" }],
    body: html`
      ${head("DNS zones", `${plural(d.zones.length, "zone")}, with their records`)}
      ${d.zones.length ? d.zones.map((z) => zoneCard(z, ctx))
        : card(null, empty(html`No DNS zones yet. Create one with <code>new cloud.DnsZone("zone", { name: "example.com" })</code>.`))}`,
  };
}

export function zonePage(d, ctx) {
  return {
    trail: [{ text: "DNS", href: ctx.link("dns") }, { text: d.zone.name }],
    body: html`
      ${head(d.zone.name, html`${badge(d.zone.published ? "PUBLISHED" : "UNVERIFIED")}<span class="mono">${d.zone.id}</span>`)}
      ${zoneCard({ ...d.zone, records: d.records }, ctx)}`,
  };
}

// ---- mail ----
function checkOf(domain, record) {
  if (!domain.lastCheckedAt) return html`<span class="muted small">not checked yet</span>`;
  if ((domain.failingRecords ?? []).includes(record.name)) return badge("FAILING", "bad");
  return badge(record.required ? "FOUND" : "OPTIONAL", record.required ? "ok" : "idle");
}

function mailDomainCard(m, ctx) {
  return card(
    html`${icon("mail")}<h2>${m.name}</h2>${badge(m.status)}`,
    html`
      ${facts([
        ["Region", m.region], ["Daily quota", `${m.dailyQuota.toLocaleString("en")} recipients`],
        ["Verified", when(m.verifiedAt, ctx.now)], ["Last checked", when(m.lastCheckedAt, ctx.now)],
        ["Zone", m.zone?.dnsZoneId ? html`<a href=${ctx.link("dns", m.zone.dnsZoneId)}>${m.zone.name}</a> ${tag("platform")}` : m.zone?.name],
        m.failingRecords?.length ? ["Failing", html`${m.failingRecords.map((r) => html`${tag(r)} `)}`] : null,
        m.suspendedReason ? ["Suspended", m.suspendedReason] : null,
      ])}
      ${table(["Record", "Type", "Host", "Value", "Check"], m.records, (r) => html`
        <tr data-mail-record=${r.name}>
          <td><b>${r.name}</b>${r.required ? nothing : html` <span class="muted small">optional</span>`}</td>
          <td>${tag(r.type, true)}</td>
          <td class="mono wrap">${r.fqdn}</td>
          <td class="mono wrap small" title=${r.value}>${r.priority !== null ? `${r.priority} ` : ""}${r.value.length > 90 ? `${r.value.slice(0, 90)}…` : r.value}</td>
          <td>${checkOf(m, r)}</td>
        </tr>`)}`,
    html`<span class="mono small">${m.id}</span>`,
    { id: m.id },
  );
}

export function mailPage(d, ctx) {
  return {
    trail: [{ text: "Mail" }],
    body: html`
      ${head("Mail", `${plural(d.domains.length, "sending domain")} · ${plural(d.outboxTotal, "email")} in the outbox`)}
      ${d.domains.length ? d.domains.map((m) => mailDomainCard(m, ctx))
        : card(null, empty(html`No sending domains yet. <code>new cloud.VerifiedMailDomain(...)</code> adds one and waits until it is verified.`))}
      ${card(html`${icon("mail")}<h2>Outbox</h2>`, table(["Sent", "From", "To", "Subject", "Status"], d.outbox, (m) => html`
        <tr data-email=${m.id}>
          <td>${when(m.createdAt, ctx.now)}</td>
          <td class="wrap small">${m.from ?? "—"}</td>
          <td class="wrap">${m.to}</td>
          <td><a href=${ctx.link("emails", m.id)}>${m.subject || "(no subject)"}</a></td>
          <td>${badge(m.status)} ${m.sandbox ? tag("sandbox") : nothing}</td>
        </tr>`, "No email sent yet. Every message the emulator accepts lands here, sandbox or not."),
        d.outboxTotal > d.outbox.length ? `newest ${d.outbox.length} of ${d.outboxTotal}` : `${d.outboxTotal}`, { id: "outbox" })}
      ${card(html`<h2>Suppressions</h2>`, table(["Address", "Reason", "Added"], d.suppressions, (x) => html`
        <tr><td class="mono">${x.address}</td><td>${tag(x.reason)}</td><td>${when(x.createdAt, ctx.now)}</td></tr>`, "No suppressed addresses."))}`,
  };
}

export function emailPage(d, ctx) {
  const m = d.email;
  const tab = m.html === null && ctx.ui.emailTab === "html" ? "text" : ctx.ui.emailTab;
  const tabs = [["html", "HTML", m.html !== null], ["text", "Text", m.text !== null], ["headers", "Headers", true]];
  const list = (xs) => (xs?.length ? xs.join(", ") : null);
  return {
    trail: [{ text: "Mail", href: ctx.link("mail") }, { text: m.subject || "(no subject)" }],
    body: html`
      ${head(m.subject || "(no subject)", html`${badge(m.status)}${m.sandbox ? tag("sandbox") : nothing}<span class="mono">${m.id}</span>`)}
      ${card(html`<h2>Message</h2>`, facts([
        ["From", m.from], ["To", m.to], ["Cc", list(m.cc)], ["Bcc", list(m.bcc)], ["Reply to", list(m.reply_to)],
        ["Sent", when(m.created_at, ctx.now)],
        ["Delivery", html`${m.events.map((e) => html`${badge(e.status)} <span class="muted small">${when(e.at, ctx.now)}</span> `)}`],
        Object.keys(m.tags ?? {}).length ? ["Tags", html`${Object.entries(m.tags).map(([k, v]) => html`${tag(`${k}=${v}`)} `)}`] : null,
        m.attachments.length ? ["Attachments", html`${m.attachments.map((a) => html`${tag(a.filename)} <span class="muted small">${bytes(a.size)}</span> `)}`] : null,
        m.rejected?.length ? ["Rejected", m.rejected.map((r) => `${r.address} (${r.reason})`).join(", ")] : null,
      ]))}
      ${card(html`<div class="tabs">${tabs.filter((t) => t[2]).map(([k, label]) => html`
          <button class=${tab === k ? "on" : ""} data-tab=${k} @click=${() => ctx.actions.setUi({ emailTab: k })}>${label}</button>`)}</div>`,
        tab === "html" ? html`<iframe class="mail-frame" title="Message preview" sandbox="" srcdoc=${m.html ?? ""}></iframe>`
          : tab === "text" ? html`<pre class="block">${m.text ?? ""}</pre>`
            : html`<pre class="block">${Object.entries(m.headers ?? {}).map(([k, v]) => `${k}: ${v}\n`).join("") || "No custom headers."}</pre>`,
        null, { id: "body" })}`,
  };
}
