#!/usr/bin/env bash
# The whole suite (npm test, after the build): every test on the embedded SQLite catalog, then
# every test that builds an app again with each app on a new PostgreSQL database
# (MAPWARDEN_TEST_BACKEND=pg, test/helper.ts). MAPWARDEN_TEST_BACKENDS narrows it to "sqlite" or
# "pg"; MAPWARDEN_TEST_INCLUDE, an extended regular expression, keeps only the test files whose
# path (dist/test/...) it matches, and MAPWARDEN_TEST_EXCLUDE leaves out those it matches. Extra
# arguments go to tap. Code coverage is collected on request only (MAPWARDEN_TEST_COVERAGE=1, on the SQLite run): it is reported, never enforced, and instrumenting
# every file slows the SQLite run by minutes that CI's 60 cannot spare. Exits
# non-zero if either run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
# tap builds itself with .taprc's plugins (no TypeScript loader: tests run from dist/) on the first run
# after an install, but that run's test files are still started with the default set: ts-node's loader
# in every test process, half a second to a second of CPU per file. Building first spares the whole
# first run (CI's install is always fresh).
if grep -qs '@tapjs/typescript' node_modules/@tapjs/test/test-built/dist/esm/index.js; then npx tap build >/dev/null || status=1; fi
coverage=(--disable-coverage)
if [ "${MAPWARDEN_TEST_COVERAGE:-0}" = 1 ]; then coverage=(); fi
include=${MAPWARDEN_TEST_INCLUDE:-.}
exclude=${MAPWARDEN_TEST_EXCLUDE:-^$}
for backend in ${MAPWARDEN_TEST_BACKENDS:-sqlite pg}; do
  case "$backend" in
    sqlite)
      mapfile -t files < <(find dist/test -name '*.test.js' | grep -E "$include" | grep -vE "$exclude" | sort)
      npx tap "${coverage[@]}" "${files[@]}" "$@" || status=1
      ;;
    pg)
      mapfile -t files < <(grep -rlE '\bbuild\(' dist/test --include='*.test.js' | grep -E "$include" | grep -vE "$exclude" | sort)
      MAPWARDEN_TEST_BACKEND=pg npx tap --disable-coverage "${files[@]}" "$@" || status=1
      ;;
    *) echo "MAPWARDEN_TEST_BACKENDS: unknown backend $backend (sqlite, pg)" >&2; exit 2 ;;
  esac
done
exit "$status"
