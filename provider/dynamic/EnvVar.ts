// The dynamic provider of EnvVar, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/EnvVar")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("EnvVar");
