// The dynamic provider of CustomDomain, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/CustomDomain")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("CustomDomain");
