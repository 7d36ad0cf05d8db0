// The team's policy pack: every policy of CloudPlatformGuard at its default level, with the
// public assets bucket allowed and a stricter DNS TTL floor.
import { CloudPlatformGuard } from "pulumi-cloudplatform/policy";

new CloudPlatformGuard({
  publicBuckets: { allowedBuckets: ["assets"] },
  dnsTtl: { enforcementLevel: "advisory", minTtl: 300 },
  healthCheckPath: "advisory",
});
