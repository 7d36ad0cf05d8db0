// The dynamic provider of Suppression, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/Suppression")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("Suppression");
