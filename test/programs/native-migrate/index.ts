// A project with an environment, made with the dynamic resources and then moved to the native
// ones: the alias names each resource's dynamic type, so the engine adopts it with no replacement.
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "pulumi-cloudplatform";
import * as native from "pulumi-cloudplatform/native";

const config = new pulumi.Config();
const dynamicType = (kind: string) => `pulumi-nodejs:dynamic/cloudplatform:${kind}`;

let projectId: pulumi.Output<string>;
let environmentId: pulumi.Output<string>;
if (config.getBoolean("native")) {
  const project = new native.Project("app", { name: "moving" }, { aliases: [{ type: dynamicType("Project") }] });
  const env = new native.Environment("production", { projectId: project.id, name: "production" }, { aliases: [{ type: dynamicType("Environment") }] });
  projectId = project.id;
  environmentId = env.id;
} else {
  const project = new dynamic.Project("app", { name: "moving" });
  const env = new dynamic.Environment("production", { projectId: project.id, name: "production" });
  projectId = project.id;
  environmentId = env.id;
}

export { projectId, environmentId };
