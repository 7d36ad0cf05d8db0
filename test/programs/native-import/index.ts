// Explicit providers for two workspaces, a Service adopted with the `import` option, a Project
// read with `get`, and the getProject invoke: what only the native plugin offers.
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform/native";

const config = new pulumi.Config();

const main = new cloud.Provider("main", { apiKey: config.requireSecret("keyA") });
const other = new cloud.Provider("other", { apiKey: config.requireSecret("keyB") });
const inMain = new cloud.Project("in-main", { name: "main-app" }, { provider: main });
const inOther = new cloud.Project("in-other", { name: "other-app" }, { provider: other });

const adopted = new cloud.Service("adopted", {
  environmentId: config.require("environmentId"),
  name: "legacy",
  type: "WEB",
  image: "nginx:1.27",
  envVars: [{ key: "MODE", value: config.require("mode") }],
}, { import: config.require("serviceId") });

const existing = cloud.Project.get("existing", config.require("projectId"));
const looked = cloud.getProjectOutput({ projectId: config.require("projectId") });

export const mainWorkspace = inMain.workspaceId;
export const otherWorkspace = inOther.workspaceId;
export const adoptedStatus = adopted.status;
export const existingName = existing.name;
export const lookedUpName = looked.name;
