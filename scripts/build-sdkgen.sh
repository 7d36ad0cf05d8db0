#!/usr/bin/env bash
# Builds tools/sdkgen (the SDK generator over Pulumi's codegen) into .tools/bin. The binary is
# cached under ~/.cache keyed on the tool's sources, so a fresh clone on the same machine reuses it.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/.tools/bin"
SUM="$(cat "$ROOT"/tools/sdkgen/*.go "$ROOT"/tools/sdkgen/go.{mod,sum} | sha256sum | cut -c1-12)"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-cloudplatform/sdkgen-$SUM"
mkdir -p "$BIN"

if [ -x "$BIN/sdkgen" ] && [ "$(cat "$BIN/.sdkgen-sum" 2>/dev/null)" = "$SUM" ]; then exit 0; fi
if [ ! -x "$CACHE/sdkgen" ]; then
  command -v go >/dev/null || { echo "build-sdkgen: Go is required to build tools/sdkgen" >&2; exit 1; }
  echo "build-sdkgen: building tools/sdkgen (a few minutes on a fresh machine)"
  mkdir -p "$CACHE"
  # As in build-pulumi.sh: the checksum database is not reachable for these modules.
  (cd "$ROOT/tools/sdkgen" && GOFLAGS="-mod=mod -buildvcs=false" GONOSUMDB="github.com/pulumi/pulumi${GONOSUMDB:+,$GONOSUMDB}" \
    go build -trimpath -ldflags "-s -w" -o "$CACHE/.sdkgen.tmp" . && mv -f "$CACHE/.sdkgen.tmp" "$CACHE/sdkgen")
fi
cp "$CACHE/sdkgen" "$BIN/.sdkgen.tmp" && mv -f "$BIN/.sdkgen.tmp" "$BIN/sdkgen"
echo "$SUM" > "$BIN/.sdkgen-sum"
