// A zone whose nameservers point at the platform, proof of its ownership, and a sending domain
// in it, verified in one declaration. The app in ./app sends from `fromAddress`; its own tests
// send through a sandbox key (mail_test_), so nothing leaves the platform and nothing is billed.
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
const domain = config.get("domain") ?? "example-app.test";

const zone = new cloud.DnsZone("zone", { name: domain });
const zoneVerified = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout: "5m" });

const mailName = `mail.${domain}`;
const mail = new cloud.VerifiedMailDomain("mail", {
  name: mailName,
  zoneId: zoneVerified.zoneId,
  timeout: config.get("timeout") ?? "10m",
}, { dependsOn: [zoneVerified] });

export const mailDomainId = mail.domainId;
export const mailStatus = mail.status;
/** What the app sends from: an address on the sending domain, available once the domain is verified. */
export const fromAddress = mail.status.apply(() => `Example App <hello@${mailName}>`);
