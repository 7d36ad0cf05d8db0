#!/usr/bin/env bash
# `make release VERSION=x.y.z`: every artifact of a release, all at one version, into dist-release/
# (or RELEASE_OUT), from the build in dist/ and without changing the checkout:
#   npm/     pulumi-cloudplatform-<v>.tgz and pulumi-cloudplatform-emulator-<v>.tgz (scripts/pack.ts)
#   python/  the Python SDK's sdist and wheel
#   go/      the Go SDK's module as a module proxy serves it (GOPROXY=file://…/go; tools/gomodule)
#   plugin/  the plugin's archives (scripts/make-plugin.sh), schema.json and SHA256SUMS
# The generated SDKs are generated again from schema.json with the version stamped in (tools/sdkgen,
# in a scratch folder), so each carries the release's version; they differ from sdk/ in nothing else.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
VERSION="${1:?usage: scripts/release.sh <version>}"
VERSION="${VERSION#v}"
[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || { echo "release: $VERSION is not a version (x.y.z)" >&2; exit 1; }
OUT="${RELEASE_OUT:-$ROOT/dist-release}"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
SDKGEN="$ROOT/.tools/bin/sdkgen"
for tool in "$SDKGEN" "$PYTHON"; do [ -x "$tool" ] || { echo "release: $tool is missing (make tools python-sdk)" >&2; exit 1; }; done
WORK="$(mktemp -d)"
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
rm -rf "$OUT"
mkdir -p "$OUT"/{npm,python,go,plugin}

# The schema at the release's version; sdkgen reads the Python overlays beside it.
node -e '
  const fs = require("fs");
  const [from, to, version] = process.argv.slice(1);
  const text = fs.readFileSync(from, "utf8");
  if (!/^  "version": "[^"]*"/m.test(text)) throw new Error("schema.json has no top-level version");
  fs.writeFileSync(to, text.replace(/^  "version": "[^"]*"/m, `  "version": "${version}"`));
' schema.json "$WORK/schema.json" "$VERSION"
mkdir -p "$WORK/sdk" && cp -r sdk/overlays "$WORK/sdk/overlays"

echo "release: npm packages"
node dist/scripts/pack.js --out "$OUT/npm" --version "$VERSION"

echo "release: the plugin's archives"
PLUGIN_PACKAGE="$OUT/npm/pulumi-cloudplatform-$VERSION.tgz" PLUGIN_OUT="$OUT/plugin" ./scripts/make-plugin.sh >/dev/null
cp "$WORK/schema.json" "$OUT/plugin/schema.json"
(cd "$OUT/plugin" && sha256sum -- *.tar.gz schema.json > SHA256SUMS)

echo "release: the Python SDK"
"$SDKGEN" python "$WORK/schema.json" "$WORK/python"
"$PYTHON" -m build --no-isolation --sdist --wheel --outdir "$OUT/python" "$WORK/python" >/dev/null

echo "release: the Go SDK's module"
cp -r sdk/go "$WORK/go"
"$SDKGEN" go "$WORK/schema.json" "$WORK/go-generated"
# The generated files at the release's version; go.mod and go.sum stay the checkout's (make schema tidies them).
(cd "$WORK/go-generated" && find . -type f ! -name go.mod ! -name go.sum -exec cp --parents {} "$WORK/go/" \;)
(cd tools/gomodule && go run . "$WORK/go" "v$VERSION" "$OUT/go") >/dev/null

echo "release: $VERSION in $OUT"
(cd "$OUT" && find . -type f | sort)
