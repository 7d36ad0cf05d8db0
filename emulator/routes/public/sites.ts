// GET /_sites/:label/*: the static sites the emulator serves itself, from the content of each
// site's live deploy (models/static-sites.ts). No API key: a site is public.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Emu } from "../../emu";
import { serveSite } from "../../models/static-sites";

export function siteRoutes(app: FastifyInstance, emu: Emu): void {
  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = req.params as { label: string; "*"?: string };
    const out = serveSite(emu, p.label, p["*"] ?? "");
    // A site runs on the emulator's own origin: sandboxed, its scripts cannot read the control API.
    reply.header("content-security-policy", "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads");
    return reply.code(out.status).type(out.contentType).send(out.body);
  };
  app.get("/_sites/:label", serve);
  app.get("/_sites/:label/*", serve);
}
