// An S3 client preset for the worker's emulator. The kit does not depend on the AWS SDK: pass the
// client class (`s3Client(S3Client)`), or spread s3Config() into any S3-compatible client's options.
import { ENV, required } from "./env";

export interface S3Config {
  endpoint: string;
  region: string;
  /** The emulator addresses buckets by path ({endpoint}/{bucket}/{key}). */
  forcePathStyle: true;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

/** The endpoint, region and storage access key of the worker's emulator, in the AWS SDK v3's shape. */
export function s3Config(): S3Config {
  return {
    endpoint: required(ENV.s3Endpoint),
    region: required(ENV.s3Region),
    forcePathStyle: true,
    credentials: { accessKeyId: required(ENV.s3AccessKeyId), secretAccessKey: required(ENV.s3SecretAccessKey) },
  };
}

/** A client of the given class (the AWS SDK v3's S3Client, or a compatible one) for the worker's emulator; `extra` adds to or overrides the preset. */
export function s3Client<C, X extends object = object>(Client: new (config: S3Config & X) => C, extra?: X): C {
  return new Client({ ...s3Config(), ...(extra ?? ({} as X)) });
}
