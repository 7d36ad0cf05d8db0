"""Previews the Python program `pulumi import` generated for an adopted workspace, in the stack the
import made: the Automation API's inline program runs it from this process (no Python language host
is needed), so the preview must be empty. Run by test/lifecycle/adopt.test.ts; prints one JSON line
of what it saw; exits non-zero on any failure."""
import json
import os
import runpy
import sys

from pulumi import automation as auto

from lifecycle import changes, workspace_options


def main():
    program_file = os.environ["PROGRAM"]
    stack = auto.select_stack(
        stack_name=os.environ["STACK"],
        project_name=os.environ["PROJECT"],
        program=lambda: runpy.run_path(program_file, run_name="__main__"),
        opts=workspace_options(os.path.dirname(program_file)),
    )
    preview = stack.preview(refresh=True, expect_no_changes=True, diff=True)
    print(json.dumps({"preview": changes(preview.change_summary)}))


if __name__ == "__main__":
    try:
        main()
    except Exception as err:  # the test shows this line
        print(f"adopted program preview failed: {err}", file=sys.stderr)
        sys.exit(1)
