#!/usr/bin/env bash
# Builds the YAML language host (pulumi-language-yaml) into .tools/bin, from the Go module proxy.
# pulumi-yaml's own pulumi/pkg requirement is not served by the proxy, so pkg and sdk are replaced
# by a served release that compiles with it. The binary is cached under ~/.cache keyed on the
# versions, like the CLI.
set -euo pipefail

YAML_VERSION="${PULUMI_YAML_VERSION:-v1.38.3}"
PKG_VERSION="${PULUMI_YAML_PKG_VERSION:-v3.260.0}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${PULUMI_BIN:-$ROOT/.tools/bin}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-cloudplatform/pulumi-language-yaml-$YAML_VERSION-pkg-$PKG_VERSION"
HOST=pulumi-language-yaml
mkdir -p "$BIN"

if [ -x "$BIN/$HOST" ] && [ "$(cat "$BIN/.yaml-version" 2>/dev/null)" = "$YAML_VERSION $PKG_VERSION" ]; then exit 0; fi
if [ ! -x "$CACHE/$HOST" ]; then
  command -v go >/dev/null || { echo "build-yaml: Go is required to build $HOST" >&2; exit 1; }
  echo "build-yaml: building $HOST $YAML_VERSION against pulumi $PKG_VERSION (a few minutes on a fresh machine)"
  WORK="$(mktemp -d)"
  trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
  # A throwaway module that requires pulumi-yaml and builds its command; nothing is kept but the binary.
  (
    cd "$WORK"
    export GOFLAGS="-mod=mod -buildvcs=false" GONOSUMDB="github.com/pulumi/pulumi${GONOSUMDB:+,$GONOSUMDB}"
    go mod init cloudplatform.local/yaml-host >/dev/null 2>&1
    go mod edit -require="github.com/pulumi/pulumi-yaml@$YAML_VERSION" \
      -replace="github.com/pulumi/pulumi/pkg/v3=github.com/pulumi/pulumi/pkg/v3@$PKG_VERSION" \
      -replace="github.com/pulumi/pulumi/sdk/v3=github.com/pulumi/pulumi/sdk/v3@$PKG_VERSION"
    printf 'package tools\n\nimport _ "github.com/pulumi/pulumi-yaml/pkg/pulumiyaml"\n' > tools.go
    go mod tidy >/dev/null
    go build -trimpath -ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=$YAML_VERSION" \
      -o "$WORK/$HOST" "github.com/pulumi/pulumi-yaml/cmd/$HOST"
  )
  mkdir -p "$CACHE"
  cp "$WORK/$HOST" "$CACHE/.$HOST.tmp" && mv -f "$CACHE/.$HOST.tmp" "$CACHE/$HOST"
fi
cp "$CACHE/$HOST" "$BIN/.$HOST.tmp" && mv -f "$BIN/.$HOST.tmp" "$BIN/$HOST"
echo "$YAML_VERSION $PKG_VERSION" > "$BIN/.yaml-version"
echo "build-yaml: $HOST $YAML_VERSION ready in $BIN"
