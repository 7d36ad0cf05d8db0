"""A program as a Python unit test imports it: a shop's project, production environment, web
service, DNS zone with a record wired from the service's URL, a bucket, and a mail domain whose
records go into the zone."""
import pulumi
import pulumi_cloudplatform as cp


def shop():
    project = cp.Project("shop", name="shop")
    env = cp.Environment("prod", project_id=project.id, name="production")
    web = cp.Service("web", environment_id=env.id, name="web", type="WEB", tier="STARTER", image="nginx:1.27", health_check_path="/healthz")
    key = cp.EnvVar("stripe", service_id=web.id, key="STRIPE_KEY", value=pulumi.Output.secret("sk_test"), secret=True)
    zone = cp.DnsZone("zone", name="shop.example.com")
    www = cp.DnsRecord("www", zone_id=zone.id, name="www", type="CNAME", content=web.url.apply(lambda u: u.removeprefix("https://")))
    assets = cp.Bucket("assets", cors_rules=[cp.CorsRuleArgs(allowed_origins=["*"], allowed_methods=["GET"])])
    # After the zone: the platform lists the domain's records relative to a zone that exists.
    mail = cp.MailDomain("mail", name="mail.shop.example.com", opts=pulumi.ResourceOptions(depends_on=[zone]))
    records = cp.DnsRecordSet(
        "mail-records",
        zone_id=zone.id,
        records=mail.records.apply(lambda rs: [{"name": r.zone_host or r.fqdn, "type": r.type, "content": r.value} for r in rs]),
    )
    found = cp.get_project_output(project_id=project.id)
    other = cp.get_bucket_output(name="legacy-uploads")
    return {"project": project, "env": env, "web": web, "key": key, "zone": zone, "www": www, "assets": assets, "mail": mail, "records": records, "found": found, "other": other}
