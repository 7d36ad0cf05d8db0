// The dynamic provider of MailDomain, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/MailDomain")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("MailDomain");
