module.exports = require("./provider")("DnsRecord");
