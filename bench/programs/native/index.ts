// P6's native row: N Projects served by the provider's own plugin (pulumi-resource-cloudplatform).
import * as pulumi from "@pulumi/pulumi";
import * as cloud from "pulumi-cloudplatform/native";

const config = new pulumi.Config();
const n = config.getNumber("count") ?? 1;
const tag = config.get("tag") ?? "b";
for (let i = 0; i < n; i++) new cloud.Project(`p${i}`, { name: `${tag}-${i}` });
