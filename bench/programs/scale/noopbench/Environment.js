module.exports = require("./provider")("Environment");
