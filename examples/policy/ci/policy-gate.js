#!/usr/bin/env node
// Runs `pulumi preview --json` with the arguments given (e.g. --policy-pack guard), prints each
// policy violation with its level, resource, policy and remediation, and exits 5 (Pulumi's
// policy-violation code) when any is mandatory; otherwise with the CLI's own exit code. No Pulumi
// release up to v3.274.1 exits 5 itself: v3.226.0 and later define 5 (ExitPolicyViolation) but
// exit 1 for a preview that mandatory policies fail, older releases 255. CI could not tell a policy
// failure from another.
//   node ci/policy-gate.js --policy-pack guard --stack prod
const { spawn } = require("node:child_process");
const readline = require("node:readline");

const child = spawn("pulumi", ["preview", "--json", "--non-interactive", ...process.argv.slice(2)], {
  env: { ...process.env, PULUMI_ENABLE_STREAMING_JSON_PREVIEW: "true" },
  stdio: ["ignore", "pipe", "inherit"],
});
let mandatory = 0;
readline.createInterface({ input: child.stdout }).on("line", (line) => {
  let event;
  try {
    event = JSON.parse(line);
  } catch {
    return;
  }
  const p = event.policyEvent;
  if (p) {
    if (p.enforcementLevel === "mandatory") mandatory++;
    const message = p.message.trim().replace(/\n/g, "\n    ");
    console.log(`[${p.enforcementLevel}] ${p.policyPackName}/${p.policyName} on ${p.resourceUrn || "the stack"}\n    ${message}`);
  } else if (event.diagnosticEvent && event.diagnosticEvent.severity === "error") {
    console.log(`error: ${event.diagnosticEvent.message.trim()}`);
  }
});
child.on("close", (code) => {
  if (mandatory > 0) console.log(`${mandatory} mandatory policy violation(s); pulumi preview exited ${code}`);
  process.exit(mandatory > 0 ? 5 : code ?? 1);
});
