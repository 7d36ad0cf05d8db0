#!/usr/bin/env bash
# actionlint, which checks the project's GitHub Actions workflows (test/workflows.test.ts), built
# from the Go module proxy into .tools/bin.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VERSION="${ACTIONLINT_VERSION:-v1.7.12}"
BIN="$ROOT/.tools/bin"
if [ -x "$BIN/actionlint" ] && [ "$("$BIN/actionlint" -version | head -1)" = "$VERSION" ]; then exit 0; fi
mkdir -p "$BIN"
GOBIN="$BIN" GOFLAGS="-buildvcs=false" go install "github.com/rhysd/actionlint/cmd/actionlint@$VERSION"
echo "build-actionlint: actionlint $VERSION ready in $BIN"
