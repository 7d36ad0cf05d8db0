"""A Project with an Environment, a Service with env vars (one secret) and a secret file, and a DNS
zone, through the native plugin, from Python: the Automation API's inline program serves the
language runtime from this process, so no Python language host is needed. Run by
test/lifecycle/python.test.ts: up, an empty preview (with a refresh), drift found by refresh and
repaired by up; then one resource updated and another replaced, refresh --yes and up, after which no
refresh (refresh --preview-only, preview --refresh, up --refresh) changes anything, not even a
resource's inputs; destroy, nothing left. Prints one JSON line of what it saw; exits non-zero on any
failure."""
import json
import os
import sys
import urllib.request

import pulumi
from pulumi import automation as auto
import pulumi_cloudplatform as cloud

BASE = os.environ["CLOUDPLATFORM_BASE_URL"]
KEY = os.environ["CLOUDPLATFORM_API_KEY"]


def api(method, path, body=None):
    req = urllib.request.Request(BASE + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"authorization": f"Bearer {KEY}", "content-type": "application/json"})
    with urllib.request.urlopen(req) as res:
        text = res.read()
        return json.loads(text) if text else None


def program():
    config = pulumi.Config()
    project = cloud.Project("app", name=config.require("name"), description=config.get("description"))
    env = cloud.Environment("prod", project_id=project.id, name="prod")
    cloud.Service("web", environment_id=env.id, name="web", type="WEB", image="nginx:1.27", env_vars=[
        cloud.ServiceEnvVarArgs(key="TOKEN", value=pulumi.Output.secret("t0ken-py-value"), secret=True),
        cloud.ServiceEnvVarArgs(key="MODE", value="calm"),
    ], secret_files=[cloud.ServiceSecretFileArgs(path="/etc/app.json", content=pulumi.Output.secret("{}"))])
    cloud.DnsZone("zone", name=config.require("zone"))
    pulumi.export("projectId", project.id)
    pulumi.export("kind", env.kind)


def refresh_changes(found, standalone=False):
    """Records the refresh changes an operation's events show (test/support/stack.ts has the same in
    TypeScript): a refresh step with a diff or other inputs than it had, or, for a standalone refresh,
    a resource that comes out as other than same."""
    def on_event(event):
        m = event.res_outputs_event.metadata if event.res_outputs_event else None
        state = m and (m.old or m.new)
        if not m or m.type.startswith("pulumi:providers:") or not (state and state.custom):
            return
        res = f"{m.type.split(':')[-1]}::{m.urn.split('::')[-1]}"
        op = getattr(m.op, "value", m.op)
        if standalone and op != "same":
            found.append(f"{res} {op}")
        if op != "refresh" and not standalone:
            return
        named = sorted(set(list(m.diffs or []) + list((m.detailed_diff or {}).keys())))
        if named:
            found.append(f"{res} diff {','.join(named)}")
        olds = (m.old.inputs if m.old else None) or {}
        news = (m.new.inputs if m.new else None) or {}
        same = lambda k: json.dumps(olds.get(k), sort_keys=True) == json.dumps(news.get(k), sort_keys=True)
        rewritten = sorted(k for k in set(olds) | set(news) if not same(k))
        if rewritten:
            found.append(f"{res} inputs {','.join(rewritten)}")
    return on_event


def changes(summary):
    return {op: n for op, n in (summary or {}).items() if op != "same" and n}


def workspace_options(work_dir):
    """The stack's workspace: the test's PULUMI_HOME, backend and passphrase, the CLI at PULUMI_ROOT."""
    return auto.LocalWorkspaceOptions(
        work_dir=work_dir,
        pulumi_home=os.environ["PULUMI_HOME"],
        env_vars={k: v for k, v in os.environ.items() if k.startswith(("PULUMI_", "CLOUDPLATFORM_")) or k == "PATH"},
        secrets_provider="passphrase",
        pulumi_command=auto.PulumiCommand(root=os.environ["PULUMI_ROOT"], skip_version_check=True),
    )


def main():
    stack = auto.create_or_select_stack(
        stack_name=os.environ.get("STACK", "py"),
        project_name="py-lifecycle",
        program=program,
        opts=workspace_options(os.environ["WORK_DIR"]),
    )
    seen = {}
    try:
        stack.set_config("name", auto.ConfigValue("py-shop"))
        stack.set_config("description", auto.ConfigValue("v1"))
        stack.set_config("zone", auto.ConfigValue("py-lifecycle-a.test"))
        up = stack.up()
        seen["up"] = changes(up.summary.resource_changes)
        project_id = up.outputs["projectId"].value
        seen["kind"] = up.outputs["kind"].value
        seen["description"] = api("GET", f"/v1/projects/{project_id}")["description"]

        seen["preview"] = changes(stack.preview(refresh=True, expect_no_changes=True).change_summary)

        api("PATCH", f"/v1/projects/{project_id}", {"description": "edited by hand"})
        drifted = []
        seen["drift"] = changes(stack.preview(refresh=True, on_event=refresh_changes(drifted)).change_summary)
        seen["driftRefresh"] = sorted(drifted)
        seen["repair"] = changes(stack.up(refresh=True).summary.resource_changes)
        seen["repaired"] = api("GET", f"/v1/projects/{project_id}")["description"]

        # One resource updated, another replaced, refresh --yes, up: then no refresh changes anything.
        stack.set_config("description", auto.ConfigValue("v2"))
        stack.set_config("zone", auto.ConfigValue("py-lifecycle-b.test"))
        seen["change"] = changes(stack.up().summary.resource_changes)
        found = []
        stack.refresh(on_event=refresh_changes(found, standalone=True))
        seen["afterRefresh"] = changes(stack.up().summary.resource_changes)
        stack.preview_refresh(on_event=refresh_changes(found, standalone=True))
        stack.preview(refresh=True, expect_no_changes=True, on_event=refresh_changes(found))
        stack.up(refresh=True, on_event=refresh_changes(found))
        seen["refreshChanges"] = found

        stack.destroy()
        seen["left"] = api("GET", "/_emulator/state")["total"]
    finally:
        stack.workspace.remove_stack(stack.name, force=True)
    print(json.dumps(seen))


if __name__ == "__main__":
    try:
        main()
    except Exception as err:  # the test prints this line
        print(f"python lifecycle failed: {err}", file=sys.stderr)
        sys.exit(1)
