// The one loopback address the emulator binds and hands out: its API's default host, the DNS
// server's, each database's listener and the engines behind them.
import type { Emu } from "./emu";

export const LOOPBACK = "127.0.0.1";

/** The emulator's own address as clients reach it (export, upload and storage URLs). */
export const baseUrlOf = (emu: Emu): string => emu.settings.baseUrl ?? `http://${LOOPBACK}`;
