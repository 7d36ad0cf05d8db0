#!/usr/bin/env bash
# What `make demo` needs, and no more: a Pulumi CLI of a tested version with its Node.js language
# host in .tools/bin, and the dynamic-provider host from @pulumi/pulumi. An official `pulumi` of any
# tested version on PATH is used as it is (linked; `make tools` replaces the links with its own
# build when the tests need the pinned release). Otherwise build-pulumi.sh builds the pinned
# release (Go needed). The SDK generator, which only `make schema` uses, is never built here.
set -euo pipefail

# The CLI releases the tests run (README, "Tested versions").
TESTED_VERSIONS="${PULUMI_TESTED_VERSIONS:-v3.248.0 v3.274.1}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/.tools/bin"
mkdir -p "$BIN"

tested() { local v; v="$("$1" version 2>/dev/null)" || return 1; [[ " $TESTED_VERSIONS " == *" $v "* ]]; }

link_nodejs_plugin() {
  local script
  script="$(find "$ROOT/node_modules/@pulumi/pulumi" -maxdepth 2 -name pulumi-resource-pulumi-nodejs -type f | head -n1)"
  [ -n "$script" ] || { echo "demo-tools: @pulumi/pulumi is not installed; run make build" >&2; exit 1; }
  chmod +x "$script"
  ln -sfn "$script" "$BIN/pulumi-resource-pulumi-nodejs"
}

# An official CLI ships the dynamic-provider host beside itself and warns when PATH has another.
link_host_for() {
  local dir; dir="$(dirname "$(readlink -f "$1")")"
  if [ "$dir" != "$(readlink -f "$BIN")" ] && [ -x "$dir/pulumi-resource-pulumi-nodejs" ]; then
    rm -f "$BIN/pulumi-resource-pulumi-nodejs"
  else
    link_nodejs_plugin
  fi
}

if tested "$BIN/pulumi" && [ -x "$BIN/pulumi-language-nodejs" ]; then
  link_host_for "$BIN/pulumi"
  echo "demo-tools: pulumi $("$BIN/pulumi" version) in .tools/bin"
  exit 0
fi
if onpath="$(command -v pulumi)" && tested "$onpath" && host="$(command -v pulumi-language-nodejs)"; then
  ln -sfn "$onpath" "$BIN/pulumi"
  ln -sfn "$host" "$BIN/pulumi-language-nodejs"
  link_host_for "$onpath"
  echo "demo-tools: using pulumi $("$onpath" version) from $(dirname "$onpath")"
  exit 0
fi
echo "demo-tools: no tested pulumi ($TESTED_VERSIONS) on PATH; building the pinned release (Go 1.25 or later)"
exec "$ROOT/scripts/build-pulumi.sh"
