#!/usr/bin/env bash
# Builds the plugin's release archives, one per OS and architecture Node runs on, named and laid
# out as Pulumi's engine expects them (pulumi-resource-cloudplatform-v<version>-<os>-<arch>.tar.gz,
# the executable at the archive's root): the engine downloads the one for its platform from the
# schema's pluginDownloadURL, and `pulumi plugin install resource cloudplatform <version>` takes one
# with --server <url> or --file <archive>. The plugin is JavaScript, so every archive holds the same
# packed npm package with the production dependencies the plugin uses (@pulumi/pulumi's runtime
# among them, for Construct) beside a launcher for the platform: a shell script, or a .cmd on Windows. Each needs
# `node` (>= 20) on PATH.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# The provider's npm package (scripts/pack.ts), or the one PLUGIN_PACKAGE names (the release's, with
# its version stamped in): the archives carry its version.
TARBALL="${PLUGIN_PACKAGE:-}"
[ -n "$TARBALL" ] || TARBALL="$(node dist/scripts/pack.js --out "$WORK" | head -1)"
mkdir -p "$WORK/stage"
tar xzf "$TARBALL" -C "$WORK/stage"
PKG="$WORK/stage/package"
VERSION="$(node -p 'require(process.argv[1]).version' "$PKG/package.json")"
OUT="${PLUGIN_OUT:-$ROOT/dist-plugin}"
# In the archive the package is the plugin, an application: it keeps the dependencies its provider
# and SDK code requires (found in the compiled code, so none is forgotten), with @pulumi/pulumi, a
# peer dependency for programs, pinned to the version the package is built and tested with.
PULUMI_VERSION="$(node -p 'require("./node_modules/@pulumi/pulumi/package.json").version')"
# Of the unit-test mocks, only their server (`pulumi-resource-cloudplatform --mocks`, for the Python
# SDK's set_cloudplatform_mocks) and what it requires.
find "$PKG/dist/testing" -type f ! -name 'mocksServer.js' ! -name 'mockPlatform.js' ! -name 'platform.js' -delete
node -e '
  const fs = require("fs"), path = require("path");
  const [file, pulumiVersion] = process.argv.slice(1), dir = path.dirname(file);
  const p = JSON.parse(fs.readFileSync(file, "utf8"));
  const used = new Set();
  const scan = (d) => fs.readdirSync(d, { withFileTypes: true }).forEach((e) => {
    const f = path.join(d, e.name);
    if (e.isDirectory()) return scan(f);
    if (!f.endsWith(".js")) return;
    for (const m of fs.readFileSync(f, "utf8").matchAll(/require\("((?:@[^/"]+\/)?[^/"]+)/g)) used.add(m[1]);
  });
  ["dist/provider", "dist/sdk"].forEach((d) => scan(path.join(dir, d)));
  p.dependencies = Object.fromEntries(Object.entries(p.dependencies).filter(([name]) => used.has(name)));
  p.dependencies["@pulumi/pulumi"] = pulumiVersion;
  for (const k of ["peerDependencies", "peerDependenciesMeta", "devDependencies", "scripts"]) delete p[k];
  delete p.exports["./testing/mocks"];
  fs.writeFileSync(file, JSON.stringify(p, null, 2) + "\n");
  console.error(`make-plugin: the plugin depends on ${Object.keys(p.dependencies).sort().join(", ")}`);
' "$PKG/package.json" "$PULUMI_VERSION"
(cd "$PKG" && npm install --omit=dev --omit=peer --ignore-scripts --no-audit --no-fund --no-package-lock --prefer-offline --silent)
if find "$PKG/node_modules" -name '*.node' -o -name binding.gyp | grep -q .; then
  echo "make-plugin: a production dependency has native code; the archives would not run on every platform" >&2
  exit 1
fi
chmod +x "$PKG/bin/pulumi-resource-cloudplatform"

cat > "$WORK/pulumi-resource-cloudplatform" <<'LAUNCHER'
#!/bin/sh
# The cloudplatform resource plugin: runs the packaged server with the node on PATH (>= 20); the
# package's launcher passes node its flags.
exec "$(dirname "$0")/package/bin/pulumi-resource-cloudplatform" "$@"
LAUNCHER
chmod +x "$WORK/pulumi-resource-cloudplatform"
# Windows has no sh to read the package launcher's first lines: its node flags, taken from that line.
NODE_FLAGS="$(sed -n 's/^":" \/\/; exec node \(.*\) "\$0" "\$@"$/\1/p' "$PKG/bin/pulumi-resource-cloudplatform")"
[ -n "$NODE_FLAGS" ] || { echo "make-plugin: bin/pulumi-resource-cloudplatform has no exec node line to take its flags from" >&2; exit 1; }
printf '@echo off\r\nrem The cloudplatform resource plugin: runs the packaged server with the node on PATH (>= 20), with the flags package\\bin\\pulumi-resource-cloudplatform gives it.\r\nnode %s "%%~dp0package\\bin\\pulumi-resource-cloudplatform" %%*\r\n' "$NODE_FLAGS" > "$WORK/pulumi-resource-cloudplatform.cmd"

mkdir -p "$OUT"
rm -f "$OUT"/pulumi-resource-cloudplatform-v*.tar.gz
for os in linux darwin windows; do
  launcher=pulumi-resource-cloudplatform
  [ "$os" = windows ] && launcher=pulumi-resource-cloudplatform.cmd
  cp -p "$WORK/$launcher" "$WORK/stage/$launcher"
  first=""
  for arch in amd64 arm64; do
    archive="$OUT/pulumi-resource-cloudplatform-v$VERSION-$os-$arch.tar.gz"
    if [ -n "$first" ]; then
      cp "$first" "$archive" # JavaScript: the same archive serves both architectures
    else
      # Sorted entries, no owners, no times: the same content gives the same bytes.
      tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$WORK/stage" -cf - "$launcher" package | gzip -n > "$archive"
      first="$archive"
    fi
    echo "$archive"
  done
  rm -f "$WORK/stage/$launcher"
done
