// An emulator for bench/durable.ts in its own process, holding N projects already: in memory, or
// with `--state DIR` loaded from a snapshot as after a restart. `prefill N DIR` writes that state
// (in a process of its own, so the emulator measured only loads it); `serve N [DIR]` prints one
// JSON line and serves until SIGTERM.
import { startEmulator } from "../emulator";
import { StateDir } from "../emulator/journal";
import { Store } from "../emulator/store";

const projectRow = (i: number, workspaceId: string, now: string) => ({
  id: `bench-${i.toString(16).padStart(8, "0")}-0000-4000-8000-000000000000`, workspaceId, name: `existing-${i}`, displayName: null,
  description: "A project made before the measure", defaultRegion: "af-west-1", paused: false, pausedAt: null, createdAt: now, updatedAt: now,
});

async function prefill(rows: number, stateDir: string): Promise<void> {
  const now = new Date().toISOString();
  {
    // Seed the directory, then write the rows straight into it and compact, as a long-lived state would be.
    const seeding = await startEmulator({ stateFile: stateDir });
    const ws = seeding.workspaceId;
    await seeding.close();
    const store = new Store();
    const state = await StateDir.open(stateDir, store);
    state.attach(() => state.meta, (err) => {
      throw err;
    });
    const projects = store.table("projects");
    for (let i = 0; i < rows; i++) projects.insert(projectRow(i, ws, now));
    store.flush();
    await state.compact();
    await state.close();
  }
}

async function serve(rows: number, stateDir: string | undefined): Promise<void> {
  const now = new Date().toISOString();
  const emu = await startEmulator({ stateFile: stateDir, settings: { speed: 0 } });
  if (!stateDir) {
    // Parsed, as rows made through the API (or loaded from a state) are: strings of their own, not shared literals.
    const projects = emu.emu.store.table("projects");
    for (let i = 0; i < rows; i++) projects.insert(JSON.parse(JSON.stringify(projectRow(i, emu.workspaceId, now))));
  }
  process.stdout.write(`${JSON.stringify({ baseUrl: emu.baseUrl, workspaceId: emu.workspaceId, apiKey: emu.apiKey })}\n`);
  process.on("SIGTERM", () => void emu.close().then(() => process.exit(0)));
}

const [command, rows, stateDir] = process.argv.slice(2);
(command === "prefill" ? prefill(Number(rows), stateDir) : serve(Number(rows), stateDir)).catch((err) => {
  console.error(err);
  process.exit(1);
});
