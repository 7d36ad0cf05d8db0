#!/usr/bin/env bash
# Builds the Pulumi CLI and the Node.js language host of one release from the Go module proxy,
# into .tools/bin. A finished build is cached under ~/.cache so a fresh clone on the same
# machine does not rebuild; a matching `pulumi` already on PATH is reused as is.
set -euo pipefail

VERSION="${PULUMI_VERSION:-v3.248.0}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/.tools/bin"
# The cache key covers the language host's sources, so a change to them rebuilds it.
HOST_SUM="$(cat "$ROOT"/tools/language-host/*.go "$ROOT"/tools/language-host/go.{mod,sum} | sha256sum | cut -c1-12)"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-cloudplatform/pulumi-$VERSION-$HOST_SUM"
mkdir -p "$BIN"

# Copy then rename, so a running pulumi (another test, another shell) is never overwritten in place.
install_bins() {
  local from="$1" to="$2"
  for b in pulumi pulumi-language-nodejs; do
    cp "$from/$b" "$to/.$b.tmp" && mv -f "$to/.$b.tmp" "$to/$b"
  done
}

have_version() { [ -x "$1" ] && [ "$("$1" version 2>/dev/null)" = "$VERSION" ]; }

link_nodejs_plugin() {
  # The dynamic-provider host ships inside @pulumi/pulumi; the engine finds it on PATH.
  local script="$ROOT/node_modules/@pulumi/pulumi/vendor/pulumi-resource-pulumi-nodejs"
  [ -f "$script" ] || script="$(find "$ROOT/node_modules/@pulumi/pulumi" -maxdepth 2 -name pulumi-resource-pulumi-nodejs -type f | head -n1)"
  if [ -n "$script" ] && [ -f "$script" ]; then
    chmod +x "$script"
    ln -sf "$script" "$BIN/pulumi-resource-pulumi-nodejs"
  else
    echo "build-pulumi: @pulumi/pulumi is not installed yet; run npm ci first" >&2
    exit 1
  fi
}

if have_version "$BIN/pulumi" && [ -x "$BIN/pulumi-language-nodejs" ] && [ "$(cat "$BIN/.host-sum" 2>/dev/null)" = "$HOST_SUM" ]; then
  link_nodejs_plugin; echo "pulumi $VERSION already in .tools/bin"; exit 0
fi
if onpath="$(command -v pulumi 2>/dev/null)" && have_version "$onpath" && command -v pulumi-language-nodejs >/dev/null; then
  ln -sf "$onpath" "$BIN/pulumi"; ln -sf "$(command -v pulumi-language-nodejs)" "$BIN/pulumi-language-nodejs"
  link_nodejs_plugin; echo "pulumi $VERSION found on PATH"; exit 0
fi
if have_version "$CACHE/pulumi" && [ -x "$CACHE/pulumi-language-nodejs" ]; then
  install_bins "$CACHE" "$BIN"
  echo "$HOST_SUM" > "$BIN/.host-sum"
  link_nodejs_plugin; echo "pulumi $VERSION copied from $CACHE"; exit 0
fi

command -v go >/dev/null || { echo "build-pulumi: Go is required to build the Pulumi CLI" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
# The checksum database is not reachable through the proxy for these modules; the module
# zips are still verified against the go.sum files they carry.
export GOFLAGS="-mod=mod -buildvcs=false" GONOSUMDB="github.com/pulumi/pulumi${GONOSUMDB:+,$GONOSUMDB}"

echo "build-pulumi: downloading pulumi $VERSION modules"
download() { (cd "$WORK" && go mod download -json "$1"); }
field() { python3 -c 'import json,sys; d=json.load(sys.stdin); v=d
for k in sys.argv[1].split("."): v=v.get(k) if isinstance(v,dict) else None
print(v or "")' "$1"; }

SDK_JSON="$(download "github.com/pulumi/pulumi/sdk/v3@$VERSION")"
PKG_JSON="$(download "github.com/pulumi/pulumi/pkg/v3@$VERSION")"
for j in "$SDK_JSON" "$PKG_JSON"; do
  err="$(echo "$j" | field Error)"; [ -z "$err" ] || { echo "build-pulumi: $err" >&2; exit 1; }
done
COMMIT="$(echo "$SDK_JSON" | field Origin.Hash)"
[ -n "$COMMIT" ] || COMMIT="$(echo "$PKG_JSON" | field Origin.Hash)"

SRC="$WORK/src"
mkdir -p "$SRC"
cp -r "$(echo "$SDK_JSON" | field Dir)" "$SRC/sdk"
cp -r "$(echo "$PKG_JSON" | field Dir)" "$SRC/pkg"
chmod -R u+w "$SRC"

LDFLAGS="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$VERSION"
mkdir -p "$WORK/out"
echo "build-pulumi: building pulumi (several minutes on a fresh machine)"
(cd "$SRC/pkg" && go build -trimpath -ldflags "$LDFLAGS" -o "$WORK/out/pulumi" ./cmd/pulumi)

# The official language host is its own module with no release tag; use it at the release
# commit when the proxy serves it, else build the project's stand-in (tools/language-host).
LANG_JSON=""
[ -z "$COMMIT" ] || LANG_JSON="$(download "github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3@$COMMIT" || true)"
LANG_DIR="$(echo "${LANG_JSON:-{\}}" | field Dir)"
if [ -n "$LANG_DIR" ]; then
  echo "build-pulumi: building the official pulumi-language-nodejs at $COMMIT"
  mkdir -p "$SRC/sdk/nodejs/cmd"
  rm -rf "$SRC/sdk/nodejs/cmd/pulumi-language-nodejs"
  cp -r "$LANG_DIR" "$SRC/sdk/nodejs/cmd/pulumi-language-nodejs"
  chmod -R u+w "$SRC"
  (cd "$SRC/sdk/nodejs/cmd/pulumi-language-nodejs" && go build -trimpath -ldflags "$LDFLAGS" -o "$WORK/out/pulumi-language-nodejs" .)
else
  echo "build-pulumi: the proxy does not serve pulumi-language-nodejs ($(echo "${LANG_JSON:-{\}}" | field Error | cut -c1-300)); building tools/language-host against sdk $VERSION"
  (cd "$ROOT/tools/language-host" && go build -trimpath -ldflags "-s -w -X main.version=${VERSION#v}" -o "$WORK/out/pulumi-language-nodejs" .)
fi

have_version "$WORK/out/pulumi" || { echo "build-pulumi: built CLI does not report $VERSION" >&2; exit 1; }
mkdir -p "$CACHE"
install_bins "$WORK/out" "$CACHE"
install_bins "$WORK/out" "$BIN"
echo "$HOST_SUM" > "$BIN/.host-sum"
link_nodejs_plugin
echo "build-pulumi: pulumi $VERSION ready in .tools/bin"
