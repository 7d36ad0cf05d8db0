"""A Project with an Environment through the native plugin, from Python: the Automation API's inline
program serves the language runtime from this process, so no Python language host is needed.
Run by test/lifecycle/python.test.ts: up, an empty preview (with a refresh), drift found by refresh and repaired by
up, destroy, nothing left. Prints one JSON line of what it saw; exits non-zero on any failure."""
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
    pulumi.export("projectId", project.id)
    pulumi.export("kind", env.kind)


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
        up = stack.up()
        seen["up"] = changes(up.summary.resource_changes)
        project_id = up.outputs["projectId"].value
        seen["kind"] = up.outputs["kind"].value
        seen["description"] = api("GET", f"/v1/projects/{project_id}")["description"]

        seen["preview"] = changes(stack.preview(refresh=True, expect_no_changes=True).change_summary)

        api("PATCH", f"/v1/projects/{project_id}", {"description": "edited by hand"})
        seen["drift"] = changes(stack.preview(refresh=True).change_summary)
        seen["repair"] = changes(stack.up(refresh=True).summary.resource_changes)
        seen["repaired"] = api("GET", f"/v1/projects/{project_id}")["description"]

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
