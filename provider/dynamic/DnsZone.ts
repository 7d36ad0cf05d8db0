// The dynamic provider of DnsZone, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/DnsZone")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("DnsZone");
