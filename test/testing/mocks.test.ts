// setCloudPlatformMocks on both SDKs: a valid program gets the outputs the platform fills in and
// its functions answer from what the test declares; each invalid input fails with check's message,
// the one `pulumi preview` shows.
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "../../sdk";
import * as native from "../../sdk/native";
import { registrationError, setCloudPlatformMocks } from "../../testing/mocks";
import { DMARC_VALUE, SPF_VALUE, mxHost } from "../../testing/platform";
import * as emulatorMail from "../../emulator/models/mail";
import { type Sdk, shop } from "./program";

const valueOf = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));

const SDKS: [string, Sdk][] = [["dynamic", dynamic], ["native", native as unknown as Sdk]];

describe.each(SDKS)("%s SDK", (sdkName, cp) => {
  test("a valid program: outputs as the platform fills them, functions from what the test declares", async () => {
    const mocks = await setCloudPlatformMocks({ functions: { getBucket: [{ name: "legacy-uploads", region: "af-west-1", visibility: "PRIVATE" }] } });
    const p = shop(cp);
    const [projectId, envId, url, dbUrl, fqdn, endpoint, publicBaseUrl, records, setRecords, found, other, keyId] = await Promise.all([
      valueOf(p.project.id), valueOf(p.env.id), valueOf(p.web.url), valueOf(p.db.url), valueOf(p.www.fqdn), valueOf(p.assets.endpoint),
      valueOf(p.assets.publicBaseUrl), valueOf(p.mail.records), valueOf(p.records.records), valueOf(p.found), valueOf(p.other), valueOf(p.key.id),
    ]);
    expect(projectId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await valueOf(p.env.projectId)).toBe(projectId);
    expect(await valueOf(p.web.environmentId)).toBe(envId);
    expect(url).toBe(`https://web-${(await valueOf(p.web.id)).slice(0, 6)}.cloudplatform.app`);
    expect(dbUrl).toBeNull();
    expect(await valueOf(p.web.status)).toBe("ACTIVE");
    expect(keyId).toBe(`${await valueOf(p.web.id)}/STRIPE_KEY`);
    expect(fqdn).toBe("www.shop.example.com");
    expect(endpoint).toBe("https://storage.af-west-1.cloudplatform.app");
    expect(publicBaseUrl).toBe(`${endpoint}/${await valueOf(p.assets.name)}`);
    expect(records.map((r) => [r.name, r.type, r.zoneHost, r.value.replace(/k=rsa; p=\S+$/, "k=rsa; p=<key>")])).toEqual([
      ["DKIM", "TXT", "cp1._domainkey.mail", "v=DKIM1; k=rsa; p=<key>"],
      ["SPF", "TXT", "mail", SPF_VALUE],
      ["MX", "MX", "mail", mxHost("af-west-1")],
      ["DMARC", "TXT", "_dmarc.mail", DMARC_VALUE],
    ]);
    expect(setRecords.map((r) => r.name)).toEqual(["cp1._domainkey.mail", "mail", "mail", "_dmarc.mail"]);
    // getProject of the program's own project; getBucket from the declared list.
    expect(found).toMatchObject({ id: projectId, name: "shop", region: "af-west-1" });
    expect(other).toMatchObject({ name: "legacy-uploads", visibility: "PRIVATE", publicBaseUrl: null });
    expect(mocks.made().map((m) => m.type)).toEqual(expect.arrayContaining([sdkName === "native" ? "cloudplatform:index:Service" : "pulumi-nodejs:dynamic/cloudplatform:Service"]));
  });

  test("a Service's env vars and secret files are the program's lists, whatever form the SDK sends them in", async () => {
    await setCloudPlatformMocks();
    const svc = new cp.Service("env", {
      environmentId: "e1", name: "env", type: "WEB", image: "nginx",
      envVars: [{ key: "TOKEN", value: pulumi.secret("t0ken"), secret: true }, { key: "MODE", value: "calm" }],
      secretFiles: [{ path: "/etc/a.json", content: "{}" }],
    } as never);
    expect(await valueOf(svc.envVars)).toEqual([{ key: "MODE", value: "calm", scope: "ALL", secret: false }, { key: "TOKEN", value: "t0ken", scope: "ALL", secret: true }]);
    expect(await valueOf(svc.secretFiles)).toEqual([{ path: "/etc/a.json", content: "{}" }]);
  });

  test("a function with no declared answer fails, naming how to declare one", async () => {
    await setCloudPlatformMocks();
    await expect(cp.getEnvironment({ environmentId: "0b6f1c2e-0000-4000-a000-000000000000" })).rejects.toThrow(/getEnvironment\(.*\): no answer; declare it in setCloudPlatformMocks/);
  });

  const web = { environmentId: "e1", name: "web", type: "WEB", image: "nginx" };
  const invalid: [string, (cp: Sdk) => pulumi.CustomResource, string][] = [
    ["schedule on a WEB service", (cp) => new cp.Service("s1", { ...web, schedule: "0 * * * *" } as never), "schedule: applies to CRON services only, not WEB"],
    ["a CRON service with no schedule", (cp) => new cp.Service("s2", { ...web, type: "CRON" } as never), "schedule: is required for a CRON service (five-field cron expression, UTC)"],
    ["a schedule out of range", (cp) => new cp.Service("s3", { ...web, type: "CRON", schedule: "61 * * * *" } as never), "schedule: minute field: 61 is outside 0-59"],
    ["dbName on a WEB service", (cp) => new cp.Service("s4", { ...web, dbName: "app" } as never), "dbName: applies to database services only, not WEB"],
    ["an env var key twice", (cp) => new cp.Service("s5", { ...web, envVars: [{ key: "A", value: "1" }, { key: "A", value: "2" }] } as never), "envVars: key A is declared twice"],
    ["an A record with not-an-ip", (cp) => new cp.DnsRecord("r1", { zoneId: "z", name: "www", type: "A", content: "not-an-ip" }), "content: 'not-an-ip' is not an IPv4 address"],
    ["a CNAME at the apex", (cp) => new cp.DnsRecord("r2", { zoneId: "z", name: "@", type: "CNAME", content: "example.net" }), "name: a CNAME cannot be placed at the zone apex ('@'); use an ALIAS record"],
    ["a TTL under 60", (cp) => new cp.DnsRecord("r3", { zoneId: "z", name: "www", type: "A", content: "203.0.113.1", ttl: 30 }), "ttl: must be at least 60 seconds"],
    ["a bucket name with capitals", (cp) => new cp.Bucket("b1", { name: "Bad_Name" }), "name: must be 3 to 63 characters: lowercase letters, digits, '.' and '-'"],
    ["a CORS method that does not exist", (cp) => new cp.Bucket("b2", { corsRules: [{ allowedOrigins: ["*"], allowedMethods: ["PATCH"] }] }), "corsRules[0].allowedMethods[0]: must be one of GET, PUT, POST, DELETE, HEAD"],
    ["an env var key with a dash", (cp) => new cp.EnvVar("v1", { serviceId: "s", key: "MY-KEY", value: "x" }), "key: must start with a letter or '_' and hold only letters, digits and '_'"],
  ];
  test.each(invalid)("%s fails with check's message", async (_, make, message) => {
    await setCloudPlatformMocks();
    const r = make(cp);
    const failure = await registrationError(r);
    expect(failure).toMatch(/^failed to register new resource (\w+) \[[^\]]+\]: \S+ resource '\1' has a problem: /);
    expect(failure).toContain(`has a problem: ${message}`);
  });
});

test("the mocks' platform values are the emulator's", () => {
  expect([SPF_VALUE, DMARC_VALUE, mxHost("eu-1")]).toEqual([emulatorMail.SPF_VALUE, emulatorMail.DMARC_VALUE, emulatorMail.mxHost("eu-1")]);
});
