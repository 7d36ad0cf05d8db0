// The quickstart: a project with two environments; drift made by hand, found and repaired.
import type { DemoKit } from "./demo-kit";

export async function quickstartDemo(kit: DemoKit): Promise<void> {
  kit.title("quickstart: a project with two environments");
  const s = await kit.example("quickstart");
  try {
    kit.say("pulumi up");
    const up = await s.stack.up({ onOutput: s.print });
    kit.say(`outputs: ${JSON.stringify(Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value])))}`);

    kit.say("pulumi preview (expect no changes)");
    await s.stack.preview({ onOutput: s.print, expectNoChanges: true });

    const projectId = up.outputs.projectId.value as string;
    const staging = (up.outputs.environments.value as Record<string, string>).staging;
    kit.say("behind Pulumi's back: PATCH the project's description, DELETE the staging environment");
    await kit.api.patch(`/v1/projects/${projectId}`, { description: "edited in the dashboard" });
    await kit.api.delete(`/v1/environments/${staging}`);

    kit.say("pulumi preview --refresh --diff (shows the drift)");
    await s.stack.preview({ refresh: true, diff: true, onOutput: s.print });

    kit.say("pulumi up --refresh (repairs it)");
    await s.stack.up({ refresh: true, onOutput: s.print });
    const live = await kit.api.get<{ description: string; environments: { name: string }[] }>(`/v1/projects/${projectId}`);
    kit.say(`live description: "${live.description}", environments: ${live.environments.map((e) => e.name).join(", ")}`);

    kit.say("pulumi destroy");
    await s.stack.destroy({ onOutput: s.print });
  } finally {
    await s.dispose();
  }
}
