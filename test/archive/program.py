"""A Python program with the plugin installed from its release archive into PULUMI_HOME (no plugin
on PATH): a Project with an Environment goes through up, an empty preview and destroy. The Automation
API's inline program serves the language runtime, so no Python language host is needed. Run by
test/packaging/install-from-archive.test.ts from a folder outside the checkout; prints one JSON line."""
import json
import os

import pulumi
from pulumi import automation as auto
import pulumi_cloudplatform as cloud


def program():
    project = cloud.Project("app", name="archive-py")
    env = cloud.Environment("prod", project_id=project.id, name="prod")
    pulumi.export("kind", env.kind)


def changes(summary):
    return {op: n for op, n in (summary or {}).items() if op != "same" and n}


def main():
    stack = auto.create_or_select_stack(
        stack_name="archive",
        project_name="archive-py",
        program=program,
        opts=auto.LocalWorkspaceOptions(
            work_dir=os.environ["WORK_DIR"],
            pulumi_home=os.environ["PULUMI_HOME"],
            env_vars={k: v for k, v in os.environ.items() if k.startswith(("PULUMI_", "CLOUDPLATFORM_")) or k == "PATH"},
            secrets_provider="passphrase",
            pulumi_command=auto.PulumiCommand(root=os.environ["PULUMI_ROOT"], skip_version_check=True),
        ),
    )
    try:
        up = stack.up()
        seen = {"up": changes(up.summary.resource_changes), "kind": up.outputs["kind"].value}
        seen["preview"] = changes(stack.preview(refresh=True, expect_no_changes=True).change_summary)
        seen["destroy"] = changes(stack.destroy().summary.resource_changes)
    finally:
        stack.workspace.remove_stack("archive", force=True)
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
