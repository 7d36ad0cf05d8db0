module.exports = require("./provider")("Bucket");
