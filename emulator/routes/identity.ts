// The person behind a credential and session sign-in (conventions §5).
import { type AnyRouteDef, ok, parse, type PublicRouteDef, type RouteDef } from "../http";
import { login, loginBody, meView } from "../models/sessions";

const me: RouteDef[] = [{ method: "GET", url: "/v1/me", scope: "Rp", handler: ({ principal }) => ok(meView(principal.user)) }];

// Signing in is how a person gets a credential, so it takes none (docs/api-assumptions.md).
const signIn: PublicRouteDef[] = [
  { method: "POST", url: "/v1/auth/login", public: true, handler: ({ body, emu }) => ok(login(emu, parse(loginBody, body))) },
];

export const identityRoutes: AnyRouteDef[] = [...me, ...signIn];
