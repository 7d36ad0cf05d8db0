// The live request log: what the emulator answered, newest first. The server keeps no headers or
// bodies, and masks credentials in query strings, so nothing here can show a key.
import { html, nothing } from "./vendor/lit-html/lit-html.js";
import { repeat } from "./vendor/lit-html/directives/repeat.js";
import { card, clock, empty, head } from "./kit.js";

const isControl = (e) => e.path.startsWith("/_emulator");

function rows(entries) {
  return html`
    <table class="reqs">
      <thead><tr><th>Time</th><th>Method</th><th>Status</th><th>Path</th><th class="num">Duration</th><th>Credential</th><th>Request id</th></tr></thead>
      <tbody>${repeat(entries, (e) => e.seq, (e) => html`
        <tr class="fresh" data-seq=${e.seq}>
          <td class="muted" title=${e.at}>${clock(e.at)}</td>
          <td class="m-${e.method}"><b>${e.method}</b></td>
          <td class="s${String(e.status)[0]}"><b>${e.status}</b></td>
          <td class="path" title=${e.route ?? "no route matched"}>${e.path}</td>
          <td class="num">${e.ms.toFixed(1)} ms</td>
          <td class="cred">${e.credential ?? "—"}</td>
          <td class="rid" title=${e.requestId}>${e.requestId.length > 16 ? `${e.requestId.slice(0, 14)}…` : e.requestId}</td>
        </tr>`)}
      </tbody>
    </table>`;
}

/** The newest few requests, for the overview. */
export function recentRequests(ctx, n) {
  const latest = ctx.requests.filter((e) => !isControl(e)).slice(-n).reverse();
  return latest.length ? rows(latest) : empty("No API requests yet. Every request the emulator answers shows here as it happens.");
}

export function requestsPage(_data, ctx) {
  const { requestFilter: q, hideControl, errorsOnly } = ctx.ui;
  const needle = q.trim().toLowerCase();
  const shown = ctx.requests
    .filter((e) => !hideControl || !isControl(e))
    .filter((e) => !errorsOnly || e.status >= 400)
    .filter((e) => !needle || `${e.method} ${e.status} ${e.path} ${e.requestId} ${e.credential ?? ""}`.toLowerCase().includes(needle))
    .slice()
    .reverse();
  const failing = ctx.requests.filter((e) => e.status >= 400).length;
  return {
    trail: [{ text: "Requests" }],
    body: html`
      ${head("Requests", "Every request the emulator answers, live, newest first. No header or body is kept; credentials in query strings are masked.")}
      ${card(html`
        <div class="toolbar">
          <input type="search" placeholder="Filter: method, status, path, request id" .value=${q} data-filter
            @input=${(e) => ctx.actions.setUi({ requestFilter: e.target.value })}>
          <label><input type="checkbox" .checked=${hideControl} data-hide-control @change=${(e) => ctx.actions.setUi({ hideControl: e.target.checked })}>Hide the control API</label>
          <label><input type="checkbox" .checked=${errorsOnly} @change=${(e) => ctx.actions.setUi({ errorsOnly: e.target.checked })}>Errors only</label>
        </div>`,
        shown.length ? rows(shown) : empty(ctx.requests.length ? "No request matches the filter." : "No requests yet."),
        html`<span data-count>${shown.length} shown</span>${failing ? html`<span>· ${failing} failed</span>` : nothing}`, { id: "requests" })}`,
  };
}
