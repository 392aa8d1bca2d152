#!/usr/bin/env bash
# The whole suite (npm test, after the build): every test on the embedded SQLite catalog, then
# every test that builds an app again with each app on a new PostgreSQL database
# (MAPWARDEN_TEST_BACKEND=pg, test/helper.ts). MAPWARDEN_TEST_BACKENDS narrows it to "sqlite" or
# "pg". Extra arguments go to tap. Code coverage is collected on request only
# (MAPWARDEN_TEST_COVERAGE=1, on the SQLite run): it is reported, never enforced, and instrumenting
# every file slows the SQLite run by minutes that CI's 60 cannot spare. Exits
# non-zero if either run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
coverage=(--disable-coverage)
if [ "${MAPWARDEN_TEST_COVERAGE:-0}" = 1 ]; then coverage=(); fi
for backend in ${MAPWARDEN_TEST_BACKENDS:-sqlite pg}; do
  case "$backend" in
    sqlite) npx tap "${coverage[@]}" "dist/test/**/*.test.js" "$@" || status=1 ;;
    pg)
      mapfile -t files < <(grep -rlE '\bbuild\(' dist/test --include='*.test.js' | sort)
      MAPWARDEN_TEST_BACKEND=pg npx tap --disable-coverage "${files[@]}" "$@" || status=1
      ;;
    *) echo "MAPWARDEN_TEST_BACKENDS: unknown backend $backend (sqlite, pg)" >&2; exit 2 ;;
  esac
done
exit "$status"
