// Manage projects, environments, services, DNS, mail sending domains, buckets and custom domains on the cloud platform.
package cloudplatform
