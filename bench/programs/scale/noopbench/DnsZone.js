module.exports = require("./provider")("DnsZone");
