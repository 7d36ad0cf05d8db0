// `make demo`: starts the emulator in-process and runs each example against it with the real
// Pulumi CLI: up, an empty preview, drift made by hand, preview --refresh, repair, destroy.
import { startEmulator } from "../emulator";
import { demoKit, type DemoKit } from "./demo-kit";
import { quickstartDemo } from "./demo-quickstart";
import { webAppDemo } from "./demo-web-app";
import { mailDomainDemo } from "./demo-mail-domain";
import { staticSiteDemo } from "./demo-static-site";
import { mailSandboxDemo } from "./demo-mail-sandbox";

const sections: ((kit: DemoKit) => Promise<void>)[] = [quickstartDemo, webAppDemo, mailDomainDemo, mailSandboxDemo, staticSiteDemo];

async function main(): Promise<void> {
  const emu = await startEmulator({ settings: { dnsPropagationMs: 3_000 } });
  const kit = demoKit(emu);
  kit.say(`emulator listening on ${emu.baseUrl} (workspace ${emu.workspaceId})`);
  try {
    for (const section of sections) await section(kit);
    const res = await fetch(`${emu.baseUrl}/_emulator/state`);
    const { total } = (await res.json()) as { total: number };
    kit.title("done");
    kit.say(total === 0 ? "the emulator holds nothing: every stack was destroyed" : `the emulator still holds ${total} objects`);
    if (total !== 0) process.exitCode = 1;
  } finally {
    await kit.api.close();
    await emu.close();
  }
}

main().catch((err) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
