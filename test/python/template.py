"""A program made from templates/python (PROGRAM_DIR/__main__.py, as the official CLI would run it)
run as an Automation API inline program on the stack `pulumi new` created there, since no Python
language host can be had here. Its config (cloudplatform:baseUrl, the secret cloudplatform:apiKey)
is the stack's own. Run by test/packaging/registries.test.ts with the program's virtualenv: up, an
empty preview with a refresh, destroy. Prints one JSON line of what it saw; exits non-zero on any
failure."""
import json
import os
import runpy
import sys

from pulumi import automation as auto

PROGRAM_DIR = os.environ["PROGRAM_DIR"]


def program():
    runpy.run_path(os.path.join(PROGRAM_DIR, "__main__.py"), run_name="__main__")


def changes(summary):
    return {op: n for op, n in (summary or {}).items() if op != "same" and n}


def main():
    stack = auto.select_stack(
        stack_name="dev",
        project_name=os.environ["PROJECT"],
        program=program,
        opts=auto.LocalWorkspaceOptions(
            work_dir=PROGRAM_DIR,
            pulumi_home=os.environ["PULUMI_HOME"],
            env_vars={k: v for k, v in os.environ.items() if k.startswith("PULUMI_") or k == "PATH"},
            pulumi_command=auto.PulumiCommand(root=os.environ["PULUMI_ROOT"], skip_version_check=True),
        ),
    )
    seen = {}
    up = stack.up()
    seen["up"] = changes(up.summary.resource_changes)
    seen["tier"] = up.outputs["tier"].value
    seen["preview"] = changes(stack.preview(refresh=True, expect_no_changes=True).change_summary)
    seen["destroy"] = changes(stack.destroy().summary.resource_changes)
    stack.workspace.remove_stack(stack.name)
    print(json.dumps(seen))


if __name__ == "__main__":
    try:
        main()
    except Exception as err:  # the test prints this line
        print(f"python template failed: {err}", file=sys.stderr)
        sys.exit(1)
