// The dynamic provider of Service, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/Service")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("Service");
