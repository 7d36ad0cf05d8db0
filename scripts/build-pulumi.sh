#!/usr/bin/env bash
# Builds the Pulumi CLI and the language hosts of one release from the Go module proxy, into
# .tools/bin. Finished builds are cached under ~/.cache (the CLI by release, the hosts by their
# sources) so a fresh clone on the same machine does not rebuild; a matching `pulumi` already on
# PATH is reused as is, with the hosts it ships beside it.
#
# Hosts: pulumi-language-nodejs is the official one when the proxy serves it, else the project's
# stand-in (tools/language-host). pulumi-language-python and pulumi-language-go are always the
# stand-in (unless official ones are on PATH): it only generates programs, for the tests of
# `pulumi import` in a Python or Go project, and refuses to run them.
set -euo pipefail

VERSION="${PULUMI_VERSION:-v3.248.0}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# PULUMI_BIN puts a second release beside the pinned one (the compatibility suite's CLI).
BIN="${PULUMI_BIN:-$ROOT/.tools/bin}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-cloudplatform"
# The hosts' cache key covers the stand-in's sources, so a change to them rebuilds the hosts only.
HOST_SUM="$(cat "$ROOT"/tools/language-host/*.go "$ROOT"/tools/language-host/go.{mod,sum} | sha256sum | cut -c1-12)"
HOST_CACHE="$CACHE_ROOT/language-hosts-$VERSION-$HOST_SUM"
HOSTS=(pulumi-language-nodejs pulumi-language-python pulumi-language-go)
mkdir -p "$BIN"

# Copy then rename, so a running pulumi (another test, another shell) is never overwritten in place.
install_bins() {
  local from="$1" to="$2"; shift 2
  for b in "$@"; do
    cp "$from/$b" "$to/.$b.tmp" && mv -f "$to/.$b.tmp" "$to/$b"
  done
}

have_hosts() { for h in "${HOSTS[@]}"; do [ -x "$1/$h" ] || return 1; done; }

have_version() { [ -x "$1" ] && [ "$("$1" version 2>/dev/null)" = "$VERSION" ]; }

link_nodejs_plugin() {
  # The dynamic-provider host ships inside @pulumi/pulumi; the engine finds it on PATH.
  local mods="${PULUMI_NODE_MODULES:-$ROOT/node_modules}"
  local script="$mods/@pulumi/pulumi/vendor/pulumi-resource-pulumi-nodejs"
  [ -f "$script" ] || script="$(find "$mods/@pulumi/pulumi" -maxdepth 2 -name pulumi-resource-pulumi-nodejs -type f | head -n1)"
  if [ -n "$script" ] && [ -f "$script" ]; then
    chmod +x "$script"
    ln -sf "$script" "$BIN/pulumi-resource-pulumi-nodejs"
  else
    echo "build-pulumi: @pulumi/pulumi is not installed yet; run npm ci first" >&2
    exit 1
  fi
}

if have_version "$BIN/pulumi" && have_hosts "$BIN" && [ "$(cat "$BIN/.host-sum" 2>/dev/null)" = "$HOST_SUM" ]; then
  link_nodejs_plugin; echo "pulumi $VERSION already in $BIN"; exit 0
fi
if onpath="$(command -v pulumi 2>/dev/null)" && have_version "$onpath" && command -v pulumi-language-nodejs >/dev/null; then
  ln -sf "$onpath" "$BIN/pulumi"
  missing=0
  for h in "${HOSTS[@]}"; do
    if command -v "$h" >/dev/null; then ln -sf "$(command -v "$h")" "$BIN/$h"; else missing=1; fi
  done
  if [ "$missing" = 0 ]; then link_nodejs_plugin; echo "pulumi $VERSION found on PATH"; exit 0; fi
fi

# The CLI: from the cache (also the older layout, keyed by host sources too), else built below.
CLI_CACHE=""
for d in "$CACHE_ROOT/pulumi-$VERSION" "$CACHE_ROOT"/pulumi-"$VERSION"-*; do
  if have_version "$d/pulumi"; then CLI_CACHE="$d"; break; fi
done
if [ -n "$CLI_CACHE" ] && have_hosts "$HOST_CACHE"; then
  have_version "$BIN/pulumi" || install_bins "$CLI_CACHE" "$BIN" pulumi
  install_bins "$HOST_CACHE" "$BIN" "${HOSTS[@]}"
  echo "$HOST_SUM" > "$BIN/.host-sum"
  link_nodejs_plugin; echo "pulumi $VERSION and its language hosts copied from $CACHE_ROOT"; exit 0
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
err="$(echo "$SDK_JSON" | field Error)"; [ -z "$err" ] || { echo "build-pulumi: $err" >&2; exit 1; }
COMMIT="$(echo "$SDK_JSON" | field Origin.Hash)"
SRC="$WORK/src"
mkdir -p "$SRC" "$WORK/out"
cp -r "$(echo "$SDK_JSON" | field Dir)" "$SRC/sdk"
chmod -R u+w "$SRC"
LDFLAGS="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$VERSION"

if [ -z "$CLI_CACHE" ]; then
  PKG_JSON="$(download "github.com/pulumi/pulumi/pkg/v3@$VERSION")"
  err="$(echo "$PKG_JSON" | field Error)"; [ -z "$err" ] || { echo "build-pulumi: $err" >&2; exit 1; }
  [ -n "$COMMIT" ] || COMMIT="$(echo "$PKG_JSON" | field Origin.Hash)"
  cp -r "$(echo "$PKG_JSON" | field Dir)" "$SRC/pkg"
  chmod -R u+w "$SRC"
  echo "build-pulumi: building pulumi (several minutes on a fresh machine)"
  (cd "$SRC/pkg" && go build -trimpath -ldflags "$LDFLAGS" -o "$WORK/out/pulumi" ./cmd/pulumi)
  have_version "$WORK/out/pulumi" || { echo "build-pulumi: built CLI does not report $VERSION" >&2; exit 1; }
  CLI_CACHE="$CACHE_ROOT/pulumi-$VERSION"
  mkdir -p "$CLI_CACHE"
  install_bins "$WORK/out" "$CLI_CACHE" pulumi
fi

if ! have_hosts "$HOST_CACHE"; then
  echo "build-pulumi: building tools/language-host against sdk $VERSION"
  # Its tests first: the node_modules lookup (main.go) held to Node's own answers.
  (cd "$ROOT/tools/language-host" && go test -trimpath ./... >&2)
  (cd "$ROOT/tools/language-host" && go build -trimpath -ldflags "-s -w -X main.version=${VERSION#v}" -o "$WORK/out/language-host" .)
  cp "$WORK/out/language-host" "$WORK/out/pulumi-language-python"
  cp "$WORK/out/language-host" "$WORK/out/pulumi-language-go"
  # The official Node.js host is its own module with no release tag; use it at the release
  # commit when the proxy serves it, else the stand-in.
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
    echo "build-pulumi: the proxy does not serve pulumi-language-nodejs ($(echo "${LANG_JSON:-{\}}" | field Error | cut -c1-300)); using the stand-in"
    cp "$WORK/out/language-host" "$WORK/out/pulumi-language-nodejs"
  fi
  mkdir -p "$HOST_CACHE"
  install_bins "$WORK/out" "$HOST_CACHE" "${HOSTS[@]}"
fi

have_version "$BIN/pulumi" || install_bins "$CLI_CACHE" "$BIN" pulumi
install_bins "$HOST_CACHE" "$BIN" "${HOSTS[@]}"
echo "$HOST_SUM" > "$BIN/.host-sum"
link_nodejs_plugin
echo "build-pulumi: pulumi $VERSION ready in $BIN"
