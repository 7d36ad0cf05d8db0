// The dynamic provider of Environment, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/Environment")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("Environment");
