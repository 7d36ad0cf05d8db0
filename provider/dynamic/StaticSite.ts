// The dynamic provider of StaticSite, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/StaticSite")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("StaticSite");
