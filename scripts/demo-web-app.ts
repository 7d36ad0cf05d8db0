// The web app: a Postgres database linked into a container web service with env vars and a secret
// file, and a cron job. up waits for the deploys; an env var changed by hand is found and repaired.
import type { DemoKit } from "./demo-kit";

export async function webAppDemo(kit: DemoKit): Promise<void> {
  kit.title("web-app: a web service with its database and a cron job");
  const s = await kit.example("web-app");
  try {
    kit.say("pulumi up (waits for every first deploy to be RUNNING)");
    const up = await s.stack.up({ onOutput: s.print });
    const webId = up.outputs.webId.value as string;
    kit.say(`url: ${up.outputs.url.value}, deploy: ${up.outputs.webStatus.value}, connection: ${up.outputs.connection.secret ? "[secret]" : "?"}`);

    kit.say("pulumi preview (expect no changes)");
    await s.stack.preview({ onOutput: s.print, expectNoChanges: true });

    kit.say("behind Pulumi's back: PATCH the web service's LOG_LEVEL to debug, and add a key Pulumi does not manage");
    await kit.api.patch(`/v1/services/${webId}/env-vars`, {
      envVars: [{ key: "LOG_LEVEL", value: "debug" }, { key: "HOTFIX", value: "set by hand" }],
    });

    kit.say("pulumi preview --refresh --diff (LOG_LEVEL shows as drift; HOTFIX and the linked DATABASE_URL do not)");
    await s.stack.preview({ refresh: true, diff: true, onOutput: s.print });

    kit.say("pulumi up --refresh (repairs it and redeploys, since redeployOnChange is set)");
    await s.stack.up({ refresh: true, onOutput: s.print });
    const vars = await kit.api.list<{ key: string; value: string; linked: boolean }>(`/v1/services/${webId}/env-vars`);
    kit.say(`live keys: ${vars.map((v) => `${v.key}${v.linked ? " (linked)" : v.key === "LOG_LEVEL" ? `=${v.value}` : ""}`).join(", ")}`);

    kit.say("pulumi destroy");
    await s.stack.destroy({ onOutput: s.print });
  } finally {
    await s.dispose();
  }
}
