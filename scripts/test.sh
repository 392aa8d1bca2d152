#!/usr/bin/env bash
# The whole suite (npm test, after the build): every test on the embedded SQLite catalog, then
# every test that builds an app again with each app on a new PostgreSQL database
# (MAPWARDEN_TEST_BACKEND=pg, test/helper.ts). MAPWARDEN_TEST_BACKENDS narrows it to "sqlite" or
# "pg". Extra arguments go to tap. Exits non-zero if either run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
for backend in ${MAPWARDEN_TEST_BACKENDS:-sqlite pg}; do
  case "$backend" in
    sqlite) npx tap "dist/test/**/*.test.js" "$@" || status=1 ;;
    pg)
      mapfile -t files < <(grep -rlE '\bbuild\(' dist/test --include='*.test.js' | sort)
      MAPWARDEN_TEST_BACKEND=pg npx tap "${files[@]}" "$@" || status=1
      ;;
    *) echo "MAPWARDEN_TEST_BACKENDS: unknown backend $backend (sqlite, pg)" >&2; exit 2 ;;
  esac
done
exit "$status"
