// The native SDK: a Project changed in place by config (the preview table shows the diff), and a
// VerifiedMailDomain, a component the plugin constructs, in a zone it verifies. Run by
// test/compat/newest.test.ts with the newest @pulumi/pulumi, Node.js 22 and the newest CLI.
const pulumi = require("@pulumi/pulumi");
const cloud = require("pulumi-cloudplatform/native");

const config = new pulumi.Config();
const zoneName = config.require("zone");
const project = new cloud.Project("app", { name: "compat-native", description: config.get("description") ?? "v1" });
const zone = new cloud.DnsZone("zone", { name: zoneName });
const proven = new cloud.DnsZoneVerification("zone", { zoneId: zone.id, timeout: "30s" });
const mail = new cloud.VerifiedMailDomain("news", { name: `news.${zoneName}`, zoneId: proven.zoneId, timeout: "30s" }, { dependsOn: [proven] });

exports.projectId = project.id;
exports.mailStatus = mail.status;
