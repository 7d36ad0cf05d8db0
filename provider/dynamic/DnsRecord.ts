// The dynamic provider of DnsRecord, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/DnsRecord")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("DnsRecord");
