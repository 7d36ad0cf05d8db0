// The dynamic provider of each resource kind, as the resource classes hand it to Pulumi: the export
// of the kind's own module (provider/dynamic/<Kind>), so state refers to it by package name.
import type * as pulumi from "@pulumi/pulumi";
import { providerFor } from "../provider/dynamic/providerFor";

export { providerFor };

/**
 * The provider of `kind`: the export of provider/dynamic/<kind>, so it is serialized by reference.
 * A kind without its module yet still works, serialized by value (a test lists the missing ones).
 */
export function providerModule(kind: string): pulumi.dynamic.ResourceProvider {
  if (!/^[A-Za-z]+$/.test(kind)) throw new Error(`cloudplatform: unknown resource kind '${kind}'`);
  const path = `../provider/dynamic/${kind}`;
  try {
    return require(path);
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e.code === "MODULE_NOT_FOUND" && e.message?.includes(path)) return providerFor(kind);
    throw err;
  }
}
