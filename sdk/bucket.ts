import type * as pulumi from "@pulumi/pulumi";
import { type OutputsOf, Resource } from "./resource";
import type { BucketArgs, BucketState } from "./types";

export interface Bucket extends OutputsOf<BucketState> {}

/**
 * An object storage bucket, with its CORS rules and access policy. Without `name`, the bucket is
 * named after the resource plus a random suffix, once, and keeps that name. Destroying a bucket
 * that holds objects fails unless `forceDestroy` is true.
 */
export class Bucket extends Resource {
  constructor(name: string, args: BucketArgs = {}, opts?: pulumi.CustomResourceOptions) {
    // The provider's check gets no URN, so the logical name travels as a hidden input for auto-naming.
    super("Bucket", name, { ...args, __logicalName: name }, opts);
  }
}
