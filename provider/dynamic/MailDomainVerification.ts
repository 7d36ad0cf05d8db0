// The dynamic provider of MailDomainVerification, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/MailDomainVerification")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("MailDomainVerification");
