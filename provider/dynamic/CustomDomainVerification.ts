// The dynamic provider of CustomDomainVerification, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/CustomDomainVerification")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("CustomDomainVerification");
