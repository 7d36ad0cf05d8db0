// The dynamic provider of DnsZoneVerification, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/DnsZoneVerification")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("DnsZoneVerification");
