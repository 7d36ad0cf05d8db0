"""Unit tests of shop.py with the provider's own checks, no API: set_cloudplatform_mocks runs the
provider's `check` on every resource (bad inputs fail with the message `pulumi preview` gives) and
fills the outputs the way the platform does. Run: python -m unittest test_shop (the plugin,
pulumi-resource-cloudplatform, on PATH)."""
import logging
import re
import unittest
from typing import Any

import pulumi
import pulumi_cloudplatform as cp
from pulumi_cloudplatform.testing import MocksError, set_cloudplatform_mocks

from shop import shop

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$")


def web(resource_name: str, **given: Any) -> cp.Service:
    """A WEB service, with what the case changes."""
    return cp.Service(resource_name, **{"environment_id": "e1", "name": "web", "type": "WEB", "image": "nginx", **given})


class ValidProgram(unittest.TestCase):
    def setUp(self):
        self.mocks = set_cloudplatform_mocks(functions={"getBucket": [{"name": "legacy-uploads", "region": "af-west-1", "visibility": "PRIVATE"}]})

    @pulumi.runtime.test
    def test_outputs_as_the_platform_fills_them(self):
        p = shop()

        def check(v):
            project_id, env_id, env_project, web_id, url, status, key_id, fqdn, endpoint, records, set_names, found, other = v
            self.assertRegex(project_id, UUID)
            self.assertEqual(env_project, project_id)
            self.assertEqual(url, f"https://web-{web_id[:6]}.cloudplatform.app")
            self.assertEqual(status, "ACTIVE")
            self.assertEqual(key_id, f"{web_id}/STRIPE_KEY")
            self.assertEqual(fqdn, "www.shop.example.com")
            self.assertEqual(endpoint, "https://storage.af-west-1.cloudplatform.app")
            # Output.all hands nested output objects over as plain dicts.
            self.assertEqual([(r["name"], r["type"], r["zone_host"]) for r in records], [
                ("DKIM", "TXT", "cp1._domainkey.mail"), ("SPF", "TXT", "mail"), ("MX", "MX", "mail"), ("DMARC", "TXT", "_dmarc.mail"),
            ])
            self.assertEqual(set_names, ["cp1._domainkey.mail", "mail", "mail", "_dmarc.mail"])
            # getProject of the program's own project; getBucket from the declared list.
            self.assertEqual((found.id, found.name, found.region), (project_id, "shop", "af-west-1"))
            self.assertEqual((other.name, other.visibility, other.public_base_url), ("legacy-uploads", "PRIVATE", None))

        return pulumi.Output.all(
            p["project"].id, p["env"].id, p["env"].project_id, p["web"].id, p["web"].url, p["web"].status, p["key"].id, p["www"].fqdn,
            p["assets"].endpoint, p["mail"].records, p["records"].records.apply(lambda rs: [r["name"] for r in rs]), p["found"], p["other"],
        ).apply(check)

    @pulumi.runtime.test
    def test_a_secret_input_stays_secret(self):
        p = shop()
        return pulumi.Output.all(p["key"].value.is_secret(), p["key"].value).apply(lambda v: self.assertEqual(v, [True, "sk_test"]))

    def test_a_function_with_no_declared_answer_fails(self):
        @pulumi.runtime.test
        def run():
            return cp.get_environment_output(environment_id="0b6f1c2e-0000-4000-a000-000000000000").id

        with self.assertRaisesRegex(Exception, r"getEnvironment\(.*\): no answer; declare it"):
            run()


INVALID = [
    ("schedule on a WEB service", lambda: web("s1", schedule="0 * * * *"), "schedule: applies to CRON services only, not WEB"),
    ("a CRON service with no schedule", lambda: web("s2", type="CRON"), "schedule: is required for a CRON service (five-field cron expression, UTC)"),
    ("dbName on a WEB service", lambda: web("s4", db_name="app"), "dbName: applies to database services only, not WEB"),
    ("an env var key twice", lambda: web("s5", env_vars=[cp.ServiceEnvVarArgs(key="A", value="1"), cp.ServiceEnvVarArgs(key="A", value="2")]), "envVars: key A is declared twice"),
    ("an A record with not-an-ip", lambda: cp.DnsRecord("r1", zone_id="z", name="www", type="A", content="not-an-ip"), "content: 'not-an-ip' is not an IPv4 address"),
    ("a CNAME at the apex", lambda: cp.DnsRecord("r2", zone_id="z", name="@", type="CNAME", content="example.net"), "name: a CNAME cannot be placed at the zone apex ('@'); use an ALIAS record"),
    ("a TTL under 60", lambda: cp.DnsRecord("r3", zone_id="z", name="www", type="A", content="203.0.113.1", ttl=30), "ttl: must be at least 60 seconds"),
    ("a bucket name with capitals", lambda: cp.Bucket("b1", name="Bad_Name"), "name: must be 3 to 63 characters: lowercase letters, digits, '.' and '-'"),
    ("a CORS method that does not exist", lambda: cp.Bucket("b2", cors_rules=[cp.CorsRuleArgs(allowed_origins=["*"], allowed_methods=["PATCH"])]), "corsRules[0].allowedMethods[0]: must be one of GET, PUT, POST, DELETE, HEAD"),
    ("an env var key with a dash", lambda: cp.EnvVar("v1", service_id="s", key="MY-KEY", value="x"), "key: must start with a letter or '_' and hold only letters, digits and '_'"),
]


class InvalidInputs(unittest.TestCase):
    def test_each_fails_with_checks_message(self):
        set_cloudplatform_mocks()
        # Each refused resource's outputs fail too; asyncio would log every one of them.
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
        for what, make, message in INVALID:
            with self.subTest(what):
                @pulumi.runtime.test
                def run():
                    return make().id

                with self.assertRaises(MocksError) as failed:
                    run()
                self.assertRegex(str(failed.exception), r"^cloudplatform:index:\w+ resource '\w+' has a problem: ")
                self.assertIn(f"has a problem: {message}", str(failed.exception))


if __name__ == "__main__":
    unittest.main()
