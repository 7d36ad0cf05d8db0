// Both SDKs side by side: a bucket with no name on each (named after the resource, the same in
// preview and in up), and a service on each, whose name is unique in its environment, for
// `pulumi up --replace`.
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "pulumi-cloudplatform";
import * as native from "pulumi-cloudplatform/native";

const config = new pulumi.Config();
const region = config.get("region");
const nativeBucket = new native.Bucket("media", { region });
const dynamicBucket = new dynamic.Bucket("media", { region });

const project = new native.Project("app", { name: "names" });
const env = new native.Environment("production", { projectId: project.id, name: "production" });
const web = new native.Service("web", { environmentId: env.id, name: "web", type: "WEB", image: "nginx:1.27" });
const api = new dynamic.Service("api", { environmentId: env.id, name: "api", type: "WEB", image: "nginx:1.27" });

export const nativeBucketName = nativeBucket.name;
export const dynamicBucketName = dynamicBucket.name;
export const environmentId = env.id;
export const webId = web.id;
export const apiId = api.id;
