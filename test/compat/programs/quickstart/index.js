// examples/quickstart on the dynamic SDK, in plain JavaScript: run by test/compat/newest.test.ts
// with the newest @pulumi/pulumi, Node.js 22 and the newest CLI.
const pulumi = require("@pulumi/pulumi");
const cloud = require("pulumi-cloudplatform");

const config = new pulumi.Config();
const project = new cloud.Project("shop", { name: "compat-shop", displayName: "Shop", description: config.get("description") ?? "v1" });
const production = new cloud.Environment("production", { projectId: project.id, name: "production" });
const staging = new cloud.Environment("staging", { projectId: project.id, name: "staging" });

exports.projectId = project.id;
exports.kinds = [production.kind, staging.kind];
exports.node = process.version;
exports.sdk = require("@pulumi/pulumi/package.json").version;
