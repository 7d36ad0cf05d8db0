// The dynamic provider of SecretFile, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/SecretFile")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("SecretFile");
