"""An example's Python program (EXAMPLE_DIR/__main__.py, as the official CLI would run it) as an
Automation API inline program, since no Python language host can be had here. Run by
test/lifecycle/quickstart-languages.test.ts: up, an empty preview with a refresh, destroy, nothing
left. Prints one JSON line of what it saw; exits non-zero on any failure."""
import json
import os
import runpy
import sys

from pulumi import automation as auto

from lifecycle import api, changes, workspace_options

EXAMPLE_DIR = os.environ["EXAMPLE_DIR"]


def program():
    runpy.run_path(os.path.join(EXAMPLE_DIR, "__main__.py"), run_name="__main__")


def main():
    stack = auto.create_or_select_stack(
        stack_name="dev",
        project_name=os.path.basename(EXAMPLE_DIR),
        program=program,
        opts=workspace_options(os.environ["WORK_DIR"]),
    )
    seen = {}
    try:
        up = stack.up()
        seen["up"] = changes(up.summary.resource_changes)
        seen["outputs"] = sorted(up.outputs)
        seen["environments"] = sorted(up.outputs["environments"].value)
        seen["preview"] = changes(stack.preview(refresh=True, expect_no_changes=True).change_summary)
        seen["destroy"] = changes(stack.destroy().summary.resource_changes)
        seen["left"] = api("GET", "/_emulator/state")["total"]
    finally:
        stack.workspace.remove_stack(stack.name, force=True)
    print(json.dumps(seen))


if __name__ == "__main__":
    try:
        main()
    except Exception as err:  # the test prints this line
        print(f"python example failed: {err}", file=sys.stderr)
        sys.exit(1)
