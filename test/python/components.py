"""A VerifiedMailDomain from Python: the component is built by the plugin (Construct) from native
resources, in a zone the test delegated. The Automation API's inline program serves the language
runtime from this process. Run by test/lifecycle/python.test.ts: up, an empty preview,
drift of a record (the DKIM record deleted through the REST API) found by refresh and repaired by
up, destroy, nothing left. Prints one JSON line of what it saw; exits non-zero on any failure."""
import json
import os
import sys

import pulumi
from pulumi import automation as auto
import pulumi_cloudplatform as cloud

from lifecycle import api, changes, workspace_options

ZONE = os.environ["ZONE"]


def program():
    zone = cloud.DnsZone("zone", name=ZONE)
    verified = cloud.DnsZoneVerification("zone", zone_id=zone.id, timeout="30s")
    mail = cloud.VerifiedMailDomain("news", name=f"news.{ZONE}", zone_id=verified.zone_id, timeout="30s",
                                    opts=pulumi.ResourceOptions(depends_on=[verified]))
    pulumi.export("zoneId", zone.id)
    pulumi.export("status", mail.status)
    pulumi.export("domainId", mail.domain_id)
    pulumi.export("records", mail.records.apply(lambda rs: [r.name for r in rs]))
    # a child, handed back as a resource of the Python SDK
    pulumi.export("childStatus", mail.verification.apply(lambda v: v.status))


def main():
    stack = auto.create_or_select_stack(
        stack_name=os.environ.get("STACK", "py-components"),
        project_name="py-components",
        program=program,
        opts=workspace_options(os.environ["WORK_DIR"]),
    )
    seen = {}
    try:
        up = stack.up()
        seen["up"] = changes(up.summary.resource_changes)
        out = {k: v.value for k, v in up.outputs.items()}
        seen["status"] = out["status"]
        seen["childStatus"] = out["childStatus"]
        seen["records"] = out["records"]
        seen["platform"] = api("GET", f"/v1/workspaces/{os.environ['CLOUDPLATFORM_WORKSPACE_ID']}/mail/domains/{out['domainId']}")["domain"]["status"]

        seen["preview"] = changes(stack.preview(refresh=True, expect_no_changes=True).change_summary)

        records = api("GET", f"/v1/dns-zones/{out['zoneId']}/records")["data"]
        dkim = next(r for r in records if r["type"] == "TXT" and "_domainkey" in r["name"])
        api("DELETE", f"/v1/dns-records/{dkim['id']}")
        api("POST", "/_emulator/time", {"advanceMs": 1000})  # past the propagation delay, on the emulator's clock
        seen["drift"] = changes(stack.preview(refresh=True).change_summary)
        repaired = stack.up(refresh=True)
        seen["repair"] = changes(repaired.summary.resource_changes)
        seen["repairedStatus"] = repaired.outputs["status"].value
        after = api("GET", f"/v1/dns-zones/{out['zoneId']}/records")["data"]
        seen["dkimBack"] = any(r["name"] == dkim["name"] and r["content"] == dkim["content"] for r in after)
        seen["previewAfter"] = changes(stack.preview(refresh=True, expect_no_changes=True).change_summary)

        seen["destroy"] = changes(stack.destroy().summary.resource_changes)
        seen["left"] = api("GET", "/_emulator/state")["total"]
    finally:
        stack.workspace.remove_stack(stack.name, force=True)
    print(json.dumps(seen))


if __name__ == "__main__":
    try:
        main()
    except Exception as err:  # the test prints this line
        print(f"python components failed: {err}", file=sys.stderr)
        sys.exit(1)
