#!/usr/bin/env bash
# The whole suite (npm test, after the build): every test on the embedded SQLite catalog, then
# every test that builds an app again with each app on a new PostgreSQL database
# (MAPWARDEN_TEST_BACKEND=pg, test/helper.ts). MAPWARDEN_TEST_BACKENDS narrows it to "sqlite" or
# "pg". Extra arguments go to tap. Code coverage is collected on the SQLite run only: the second
# run adds the PostgreSQL stores' behaviour, not coverage worth its time (MAPWARDEN_TEST_COVERAGE=0
# turns it off for the first run too, as .ci/run does for its second Node line). Exits non-zero if
# either run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
coverage=()
if [ "${MAPWARDEN_TEST_COVERAGE:-1}" = 0 ]; then coverage=(--disable-coverage); fi
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
