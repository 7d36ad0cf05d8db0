module.exports = require("./provider")("Project");
