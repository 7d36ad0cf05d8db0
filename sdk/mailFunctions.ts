// getMailDomain, getDnsZone (by name) and getMailLimits, with their Output forms; they run the
// provider's own implementations in the program's process.
import { getMailDomain as mailDomain, getMailLimits as mailLimits } from "../provider/resources/mailDomain";
import { getDnsZone as dnsZone } from "../provider/resources/dnsZone";
import { invokeFunction, outputForm } from "./functions";
import type { GetDnsZoneArgs, GetDnsZoneResult, GetMailDomainArgs, GetMailDomainResult, GetMailLimitsArgs, GetMailLimitsResult } from "./types";

/** Looks up a sending domain by id or name: its status, records to publish, zone and quota. */
export const getMailDomain = (args: GetMailDomainArgs): Promise<GetMailDomainResult> => invokeFunction(mailDomain, args);
export const getMailDomainOutput = outputForm(getMailDomain);

/** Looks up a platform DNS zone by name: its id, whether it is published, and how to verify it. */
export const getDnsZone = (args: GetDnsZoneArgs): Promise<GetDnsZoneResult> => invokeFunction(dnsZone, args);
export const getDnsZoneOutput = outputForm(getDnsZone);

/** The email API's limits: static limits, the key's send rate, each sending domain's daily quota. */
export const getMailLimits = (args: GetMailLimitsArgs = {}): Promise<GetMailLimitsResult> => invokeFunction(mailLimits, args);
export const getMailLimitsOutput = outputForm(getMailLimits);
