"""The drift tests' stack in Python (test/programs/drift-app in TypeScript): a project whose description
is under ignore_changes, a service with a plain and a secret env var, a DNS record and a bucket with CORS
rules, through the native plugin. Run by test/drift/lifecycle.test.ts: `up` only (the stack stays for
cloudplatform-drift to check without running this program); prints the stack's outputs as one JSON line."""
import json
import os
import sys

import pulumi
from pulumi import automation as auto
import pulumi_cloudplatform as cloud

from lifecycle import workspace_options


def program():
    config = pulumi.Config()
    tag = config.require("tag")
    project = cloud.Project("app", name=f"drift-{tag}", description="managed",
                            opts=pulumi.ResourceOptions(ignore_changes=["description"]))
    env = cloud.Environment("production", project_id=project.id, name="production")
    web = cloud.Service("web", environment_id=env.id, name="web", type="WEB", image="nginx:1.27", timeout="2m",
                        env_vars=[cloud.ServiceEnvVarArgs(key="MODE", value="production"),
                                  cloud.ServiceEnvVarArgs(key="TOKEN", value=config.require_secret("token"), secret=True)])
    zone = cloud.DnsZone("zone", name=f"drift-{tag}.test")
    www = cloud.DnsRecord("www", zone_id=zone.id, name="www", type="CNAME", content="app.example.com")
    assets = cloud.Bucket("assets", name=f"drift-{tag}-assets",
                          cors_rules=[cloud.CorsRuleArgs(allowed_methods=["GET"], allowed_origins=["https://shop.example.com"])])
    pulumi.export("projectId", project.id)
    pulumi.export("serviceId", web.id)
    pulumi.export("zoneId", zone.id)
    pulumi.export("recordId", www.id)
    pulumi.export("bucket", assets.name)


def main():
    stack = auto.create_or_select_stack(stack_name=os.environ["STACK"], project_name="drift-py", program=program,
                                        opts=workspace_options(os.environ["WORK_DIR"]))
    stack.set_config("tag", auto.ConfigValue(os.environ["TAG"]))
    stack.set_config("token", auto.ConfigValue(os.environ["TOKEN"], secret=True))
    up = stack.up()
    print(json.dumps({k: v.value for k, v in up.outputs.items()}))


if __name__ == "__main__":
    try:
        main()
    except Exception as err:  # the test prints this line
        print(f"python drift stack failed: {err}", file=sys.stderr)
        sys.exit(1)
