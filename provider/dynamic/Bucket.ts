// The dynamic provider of Bucket, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/Bucket")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("Bucket");
