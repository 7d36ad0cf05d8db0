// The SDK's functions run in the program: one Automation API process may run several stacks'
// programs in turn, each with its own settings, and each run's functions must use its own.
import { functionContext } from "../../sdk/functions";

const KEYS = ["CLOUDPLATFORM_API_KEY", "CLOUDPLATFORM_BASE_URL", "CLOUDPLATFORM_WORKSPACE_ID"];
const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
afterAll(() => {
  for (const k of KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

test("built once per settings, and again when they change", async () => {
  process.env.CLOUDPLATFORM_API_KEY = "svc_live_first0000000000000000000000000000";
  process.env.CLOUDPLATFORM_BASE_URL = "http://127.0.0.1:1";
  process.env.CLOUDPLATFORM_WORKSPACE_ID = "ws-first";
  const first = functionContext();
  expect(functionContext()).toBe(first);
  await expect(first.workspaceId()).resolves.toBe("ws-first");

  process.env.CLOUDPLATFORM_BASE_URL = "http://127.0.0.1:2";
  process.env.CLOUDPLATFORM_WORKSPACE_ID = "ws-second";
  const second = functionContext();
  expect(second).not.toBe(first);
  await expect(second.workspaceId()).resolves.toBe("ws-second");
});
