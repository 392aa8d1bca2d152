#!/usr/bin/env bash
# better-sqlite3 13 for Node 22 and later, installed under the alias better-sqlite3-napi
# (services/storage/sqlite/sqlite-driver.ts loads it there; on Node 20 it loads better-sqlite3 12).
# Not a dependency in package.json: 13 declares engines node >=22, so on Node 20, a supported
# runtime, npm would warn EBADENGINE on every install for a package that is never loaded there.
# Run by npm's postinstall (npm install, npm ci) and again after `npm prune` (Dockerfile), which
# removes it as extraneous. The version is package.json's config.betterSqlite3Napi.
set -euo pipefail
cd "$(dirname "$0")/.."
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 22 ] || exit 0
version=$(node -p 'require("./package.json").config.betterSqlite3Napi')
# Installed as a host's dependency (npm runs this from the host's install): the host's own tree is
# the host's to change; sqlite-driver.ts names the package to add when it is missing.
if [ -n "${INIT_CWD:-}" ] && [ "$(cd "$INIT_CWD" && pwd -P)" != "$(pwd -P)" ]; then
  echo "mapwarden: on Node $major, add better-sqlite3-napi@npm:better-sqlite3@$version to your dependencies" >&2
  exit 0
fi
installed=$(node -p 'try { require("./node_modules/better-sqlite3-napi/package.json").version } catch { "" }')
[ "$installed" = "$version" ] && exit 0
npm install --no-save --no-audit --no-fund "better-sqlite3-napi@npm:better-sqlite3@$version"
