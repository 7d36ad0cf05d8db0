import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform";

const config = new pulumi.Config();
// No name: the bucket is auto-named from "assets" plus a suffix.
const assets = new cloud.Bucket("assets", {
  region: config.get("region"),
  corsRules: [
    { allowedMethods: ["GET", "HEAD"], allowedOrigins: ["https://shop.example.com"], maxAgeSeconds: 600 },
    { allowedMethods: ["PUT"], allowedOrigins: ["https://admin.example.com"], allowedHeaders: ["content-type"] },
  ],
  // Key order differs from what the API echoes back once canonicalised: no false drift.
  policy: { version: "2026-01-01", statements: [{ principals: ["*"], effect: "allow", actions: ["read"] }] },
  forceDestroy: config.getBoolean("forceDestroy") ?? false,
});

export const name = assets.name;
export const region = assets.region;
export const endpoint = assets.endpoint;
export const keyIds = cloud.getStorageAccessKeysOutput({}).keys.apply((ks) => ks.map((k) => k.accessKeyId));
export const looked = cloud.getBucketOutput({ name: assets.name, region: assets.region }).apply((b) => ({ endpoint: b.endpoint, policy: b.policy }));
