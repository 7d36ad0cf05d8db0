// The wallet, invoices and this month's usage (infrastructure routes §4.10).
import { ok, page, type RouteDef } from "../http";
import { balanceOf, getInvoice, invoicesOf, usageOf } from "../models/billing";

export const billingRoutes: RouteDef[] = [
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/balance", scope: "Rp",
    handler: ({ principal, params, emu }) => ok(balanceOf(emu, principal.workspace(params.workspaceId))),
  },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/invoices", scope: "Rp",
    handler: ({ principal, params, query, emu }) => ok(page(invoicesOf(emu, principal.workspace(params.workspaceId)), query)),
  },
  { method: "GET", url: "/v1/invoices/:invoiceId", scope: "Rp", handler: ({ principal, params, emu }) => ok(getInvoice(emu, principal, params.invoiceId)) },
  {
    method: "GET", url: "/v1/workspaces/:workspaceId/usage", scope: "Rp",
    handler: ({ principal, params, emu }) => ok(usageOf(emu, principal.workspace(params.workspaceId))),
  },
];
