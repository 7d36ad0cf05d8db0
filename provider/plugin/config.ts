// The provider's own inputs (an explicit Provider resource, or the stack's cloudplatform:* config).
import { diffWith, type DiffResult } from "../resources/framework";

/** Any of the three settings changes in place: the provider's resources stay where they are. */
export function configDiff(olds: Record<string, unknown>, news: Record<string, unknown>): DiffResult {
  return diffWith(olds, news, { update: ["apiKey", "baseUrl", "workspaceId"] });
}
