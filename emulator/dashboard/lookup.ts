// Lookups the dashboard's views share: it sees every workspace, so nothing here takes a key.
import type { Workspace } from "../auth";
import type { Emu } from "../emu";
import { notFound } from "../errors";
import { type Service, services } from "../models/services";
import { allWorkspaces } from "../models/workspaces";

export function workspaceOf(emu: Emu, id: string): Workspace {
  const ws = allWorkspaces(emu).find((w) => w.id === id);
  if (!ws) throw notFound("Workspace", id);
  return ws;
}

export const servicesOf = (emu: Emu, workspaceId: string): Service[] => services(emu).where((s) => s.workspaceId === workspaceId);

export const serviceRef = (s: Service) => ({ id: s.id, name: s.name, type: s.type });
