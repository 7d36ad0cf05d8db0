#!/usr/bin/env bash
# Vitest for test/testing/app-tests.test.ts: the version examples/app-tests declares as a
# devDependency, from the npm registry, into .tools/vitest (not a dependency of this package). The
# example's vitest.config.mjs imports nothing from vitest, so it runs from there as it would from
# the example's own node_modules.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="$ROOT/.tools/vitest"
VERSION="$(node -p 'require(process.argv[1]).devDependencies.vitest' "$ROOT/examples/app-tests/package.json")"
if [ "$(node -p 'require(process.argv[1]).version' "$DIR/node_modules/vitest/package.json" 2>/dev/null)" = "$VERSION" ]; then exit 0; fi
mkdir -p "$DIR"
[ -f "$DIR/package.json" ] || echo '{"name":"cloudplatform-vitest","private":true}' > "$DIR/package.json"
npm install --prefix "$DIR" --no-audit --no-fund --silent --no-package-lock "vitest@$VERSION"
echo "build-vitest: vitest $VERSION ready in $DIR"
