"""The drift harness's stack in Python (test/programs/drift-harness in TypeScript): every resource type,
with the properties a person can edit through the API declared from the JSON spec the harness passes
as config (test/drift/harness/declared.ts), through the native plugin. Run by test/drift/harness/fleet.ts
and bench/drift-harness.ts: `up --refresh` only (also what restores objects deleted by hand);
cloudplatform-drift then checks the stack without running this program. Prints OK."""
import os
import sys

import pulumi
from pulumi import automation as auto
import pulumi_cloudplatform as cloud

from lifecycle import workspace_options

SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "programs", "drift-harness", "site")


def record(r):
    out = {"name": r["name"], "type": r["type"], "content": r["content"], "ttl": r["ttl"]}
    if "priority" in r:
        out["priority"] = r["priority"]
    return out


def cors(r):
    return cloud.CorsRuleArgs(allowed_methods=r["allowedMethods"], allowed_origins=r["allowedOrigins"],
                              allowed_headers=r["allowedHeaders"], expose_headers=r["exposeHeaders"], max_age_seconds=r["maxAgeSeconds"])


def program():
    config = pulumi.Config()
    s = config.require_object("spec")
    opts = pulumi.ResourceOptions
    project = cloud.Project("app", name=s["project"]["name"], display_name=s["project"]["displayName"],
                            description=s["project"]["description"], opts=opts(ignore_changes=["description"]))
    cloud.Project("spare", name=s["spare"]["name"])
    env = cloud.Environment("production", project_id=project.id, name=s["env"]["name"])
    cloud.Environment("staging", project_id=project.id, name=s["spareEnv"]["name"])

    w = s["web"]
    env_vars = [cloud.ServiceEnvVarArgs(key=v["key"], value=v["value"], scope=v["scope"], secret=v["secret"]) for v in w["envVars"]]
    env_vars.append(cloud.ServiceEnvVarArgs(key="TOKEN", value=config.require_secret("token"), scope="ALL", secret=True))
    cloud.Service("web", environment_id=env.id, type="WEB", timeout="2m", suspended=False, name=w["name"], image=w["image"],
                  image_command=w["imageCommand"], start_command=w["startCommand"], build_command=w["buildCommand"],
                  health_check_path=w["healthCheckPath"], port=w["port"], env_vars=env_vars,
                  secret_files=[cloud.ServiceSecretFileArgs(path=w["filePath"], content=config.require_secret("fileContent"))])
    j = s["job"]
    job = cloud.Service("job", environment_id=env.id, type="CRON", timeout="2m", cron_suspended=False, name=j["name"],
                        image=j["image"], schedule=j["schedule"], command=j["command"], opts=opts(ignore_changes=["command"]))
    cloud.EnvVar("region", service_id=job.id, key=s["region"]["key"], value=s["region"]["value"], scope=s["region"]["scope"], secret=False)
    cloud.EnvVar("apikey", service_id=job.id, key=s["apiKeyVar"]["key"], value=config.require_secret("apiKey"), scope="ALL", secret=True)
    cloud.SecretFile("cert", service_id=job.id, path=s["certPath"], content=config.require_secret("cert"))

    zone = cloud.DnsZone("zone", name=s["zone"])
    verified = cloud.DnsZoneVerification("zone", zone_id=zone.id, timeout="60s")
    cloud.DnsZone("spare-zone", name=f"spare.{s['zone']}")
    cloud.DnsRecord("www", zone_id=verified.zone_id, **record(s["records"]["www"]))
    cloud.DnsRecord("txt", zone_id=verified.zone_id, **record(s["records"]["txt"]), opts=opts(ignore_changes=["ttl"]))
    cloud.DnsRecord("mx", zone_id=verified.zone_id, **record(s["records"]["mx"]))
    cloud.DnsRecordSet("set", zone_id=verified.zone_id, records=[record(r) for r in s["set"]])

    mail = cloud.MailDomain("mail", name=s["mail"], opts=opts(depends_on=[verified]))
    mail_records = cloud.DnsRecordSet("mail-records", zone_id=verified.zone_id, records=mail.records.apply(
        lambda rs: [{"name": f"{r.fqdn}.", "type": r.type, "content": r.value, **({"priority": r.priority} if r.priority is not None else {})} for r in rs]))
    cloud.MailDomainVerification("mail", domain_id=mail.id, workspace_id=mail.workspace_id, timeout="60s", opts=opts(depends_on=[mail_records]))
    cloud.Suppression("bounced", address=s["suppression"])

    b = s["bucket"]
    cloud.Bucket("assets", name=b["name"], cors_rules=[cors(r) for r in b["corsRules"]], policy=b["policy"], force_destroy=True,
                 opts=opts(ignore_changes=["corsRules[1].maxAgeSeconds"]))

    site = cloud.StaticSite("site", path=os.path.abspath(SITE), environment_id=env.id, name=s["site"]["name"], timeout="2m")
    docs = cloud.CustomDomain("docs", service_id=site.service_id, domain=s["docs"])
    docs_records = cloud.DnsRecordSet("docs-records", zone_id=verified.zone_id, records=docs.dns_target.apply(
        lambda t: [{"name": f"{r.fqdn}.", "type": r.type, "content": r.content} for r in t.records]))
    cloud.CustomDomainVerification("docs", domain_id=docs.id, timeout="60s", opts=opts(depends_on=[docs_records]))


def main():
    stack = auto.create_or_select_stack(stack_name=os.environ["STACK"], project_name=os.environ["PROJECT"], program=program,
                                        opts=workspace_options(os.environ["WORK_DIR"]))
    stack.set_config("spec", auto.ConfigValue(os.environ["SPEC"]))
    for key in ("token", "fileContent", "apiKey", "cert"):
        stack.set_config(key, auto.ConfigValue(os.environ[f"SECRET_{key}"], secret=True))
    stack.up(refresh=True)
    print("OK")


if __name__ == "__main__":
    try:
        main()
    except Exception as err:  # the test prints this line
        print(f"python harness stack failed: {err}", file=sys.stderr)
        sys.exit(1)
