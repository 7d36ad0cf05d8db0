// Every policy of the pack, pass and fail, on both SDKs' type tokens, through @pulumi/policy's own
// validation arguments (no CLI).
import { cloudPlatformPolicies } from "../../policy";
import { resourceArgs, runResource, runStack, SDKS, stackArgs } from "./args";
import { resourceCases, stackCases } from "./cases";

const all = cloudPlatformPolicies();
const named = (key: string) => `cloudplatform-${key}`;

describe.each(SDKS)("resource policies (%s SDK)", (sdk) => {
  test.each(resourceCases.map((c) => [`${c.policy} ${c.fails ? "fails" : "passes"}: ${c.kind} ${JSON.stringify(c.props).slice(0, 90)}`, c] as const))("%s", async (_, c) => {
    const violations = await runResource(all, resourceArgs(c.kind, "b", c.props, sdk, c.config));
    // Every other policy passes the case too: each case is about one policy.
    const others = Object.keys(violations).filter((p) => p !== named(c.policy));
    expect(others).toEqual([]);
    if (!c.fails) {
      expect(violations).toEqual({});
    } else {
      expect(violations[named(c.policy)]).toHaveLength(1);
      expect(violations[named(c.policy)][0].message).toContain(c.fails);
      // The CLI shows the message: it names the property to change.
      expect(violations[named(c.policy)][0].message).toMatch(/Remediation: .*`\w+`/);
    }
  });
});

describe.each(SDKS)("stack policies (%s SDK)", (sdk) => {
  test.each(stackCases.map((c) => [`${c.policy} ${c.fails ? "fails" : "passes"}: ${c.title}`, c] as const))("%s", async (_, c) => {
    const args = stackArgs(c.resources, sdk, c.config);
    const violations = await runStack(all, args);
    expect(Object.keys(violations).filter((p) => p !== named(c.policy))).toEqual([]);
    if (!c.fails) {
      expect(violations).toEqual({});
    } else {
      const [v, ...rest] = violations[named(c.policy)];
      expect(rest).toEqual([]);
      expect(v.message).toContain(c.fails);
      expect(v.message).toMatch(/Remediation: .*`\w+`/);
      expect(v.urn).toBe(args.resources.find((r) => r.name === c.about)!.urn);
    }
  });
});

test("resources of other providers are not looked at", async () => {
  const args = resourceArgs("Bucket", "b", { visibility: "PUBLIC_READ" });
  expect(await runResource(all, { ...args, type: "aws:s3/bucket:Bucket" })).toEqual({});
});

describe("values a preview does not know yet", () => {
  // As the analyzer server hands them over: unknown values behind a proxy that throws on reading them.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const proxy = require("@pulumi/policy/proxy") as { unknownCheckingProxy<T extends object>(o: T): T; unknownArrayValue: unknown };
  const unknownProps = (args: ReturnType<typeof stackArgs>) => {
    for (const r of args.resources) r.props = proxy.unknownCheckingProxy(r.props);
    return args;
  };

  test("a service whose envVars are unknown is skipped; another service is still checked", async () => {
    const dev = { kind: "Environment", name: "dev", props: { name: "dev" } };
    const computed = { kind: "Service", name: "computed", props: { type: "WEB", envVars: proxy.unknownArrayValue }, deps: { environmentId: [dev] } };
    const twice = { kind: "Service", name: "twice", props: { type: "WEB", envVars: [{ key: "A", value: "1" }, { key: "A", value: "2" }] }, deps: { environmentId: [dev] } };
    const v = await runStack(all, unknownProps(stackArgs([dev, computed, twice])));
    expect(Object.keys(v)).toEqual(["cloudplatform-unique-env-var-keys"]);
    expect(v["cloudplatform-unique-env-var-keys"].map((x) => x.message.split("\n")[0])).toEqual(["Service 'twice' declares A more than once: envVars."]);
  });

  test("a mail domain is not reported while a record set's records are unknown", async () => {
    const zone = { kind: "DnsZone", name: "zone", props: { name: "example.com" } };
    const mail = { kind: "MailDomain", name: "mail", props: { name: "mail.example.com" } };
    const verification = { kind: "MailDomainVerification", name: "v", props: {}, deps: { domainId: [mail] } };
    const set = { kind: "DnsRecordSet", name: "set", props: { records: proxy.unknownArrayValue }, deps: { zoneId: [zone] } };
    expect(await runStack(all, unknownProps(stackArgs([zone, mail, verification, set])))).toEqual({});
    // Known and without DMARC, it is.
    const known = await runStack(all, unknownProps(stackArgs([zone, mail, verification, { ...set, props: { records: [] } }])));
    expect(Object.keys(known)).toEqual(["cloudplatform-mail-dmarc"]);
  });
});
