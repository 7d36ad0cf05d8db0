// getBucket and getStorageAccessKeys, with their Output forms; they run the provider's own
// implementations in the program's process.
import { getBucket as bucket, getStorageAccessKeys as accessKeys } from "../provider/resources/storageFunctions";
import { invokeFunction, outputForm } from "./functions";
import type { GetBucketArgs, GetBucketResult, GetStorageAccessKeysArgs, GetStorageAccessKeysResult } from "./types";

/** Looks up a bucket by name and region: its endpoint, public address, visibility, CORS rules and policy. */
export const getBucket = (args: GetBucketArgs): Promise<GetBucketResult> => invokeFunction(bucket, args);
export const getBucketOutput = outputForm(getBucket);

/** Lists the workspace's storage access keys: ids only, never secrets. */
export const getStorageAccessKeys = (args: GetStorageAccessKeysArgs = {}): Promise<GetStorageAccessKeysResult> => invokeFunction(accessKeys, args);
export const getStorageAccessKeysOutput = outputForm(getStorageAccessKeys);
