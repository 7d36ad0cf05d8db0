"""CloudPlatformGuard on a Python program: the Automation API's inline program (native Python SDK)
previewed with the Node.js policy pack named in POLICY_PACK, which the engine starts through the
Node.js language host's RunPlugin. Run by test/lifecycle/policy.test.ts. For each mode it prints what
the preview reported: the policy events (level, policy, resource type and name) and whether it failed."""
import json
import os

import pulumi
from pulumi import automation as auto
import pulumi_cloudplatform as cloud

from lifecycle import workspace_options


def program(mode):
    def run():
        project = cloud.Project("shop", name="py-guarded-shop")
        env = cloud.Environment("production", project_id=project.id, name="production")
        cloud.Service("web", environment_id=env.id, name="web", type="WEB", image="nginx:1.27",
                      tier="FREE" if mode == "mandatory" else "STARTER",
                      health_check_path=None if mode == "advisory" else "/healthz")
        cloud.Bucket("uploads", visibility="PUBLIC_READ" if mode == "mandatory" else "PRIVATE")
    return run


def preview(mode):
    stack = auto.create_or_select_stack(
        stack_name=f"py-policy-{mode}", project_name="py-policy", program=program(mode),
        opts=workspace_options(os.environ["WORK_DIR"]),
    )
    events = []

    def on_event(e):
        p = e.policy_event
        if p is not None:
            events.append([p.enforcement_level, p.policy_name, p.resource_urn.split("::")[-2], p.resource_urn.split("::")[-1],
                           "Remediation: " in p.message])
    failed = False
    try:
        stack.preview(policy_packs=[os.environ["POLICY_PACK"]], on_event=on_event)
    except auto.errors.CommandError:
        failed = True
    finally:
        stack.workspace.remove_stack(stack.name)
    return {"failed": failed, "events": sorted(events)}


def main():
    print(json.dumps({mode: preview(mode) for mode in ("mandatory", "advisory", "clean")}))


if __name__ == "__main__":
    main()
