// The dynamic provider of DnsRecordSet, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/DnsRecordSet")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("DnsRecordSet");
