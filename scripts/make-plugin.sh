#!/usr/bin/env bash
# Builds the plugin tarball that `pulumi plugin install resource cloudplatform <version> --file
# <tarball>` installs offline: a launcher named pulumi-resource-cloudplatform, and beside it the
# packed npm package with its production dependencies and the protobuf modules the server uses.
# It runs wherever node (>= 20) does.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
VERSION="$(node -p 'require("./package.json").version')"
OUT="$ROOT/dist-plugin"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

npm pack --silent --pack-destination "$WORK" >/dev/null
mkdir -p "$WORK/stage"
tar xzf "$WORK/pulumi-cloudplatform-$VERSION.tgz" -C "$WORK/stage"
(cd "$WORK/stage/package" && npm install --omit=dev --omit=peer --ignore-scripts --no-audit --no-fund --no-package-lock --prefer-offline --silent)
# The server loads only @pulumi/pulumi's generated protobuf modules (a peer dependency of the SDK).
PULUMI_DIR="$WORK/stage/package/node_modules/@pulumi/pulumi"
mkdir -p "$PULUMI_DIR"
cp node_modules/@pulumi/pulumi/package.json "$PULUMI_DIR/"
cp -r node_modules/@pulumi/pulumi/proto "$PULUMI_DIR/"
cat > "$WORK/stage/pulumi-resource-cloudplatform" <<'LAUNCHER'
#!/bin/sh
# The cloudplatform resource plugin: runs the packaged server with the node on PATH.
exec node "$(dirname "$0")/package/bin/pulumi-resource-cloudplatform" "$@"
LAUNCHER
chmod +x "$WORK/stage/pulumi-resource-cloudplatform" "$WORK/stage/package/bin/pulumi-resource-cloudplatform"
mkdir -p "$OUT"
TARBALL="$OUT/pulumi-resource-cloudplatform-v$VERSION.tar.gz"
tar czf "$TARBALL" -C "$WORK/stage" pulumi-resource-cloudplatform package
echo "$TARBALL"
