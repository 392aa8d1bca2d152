#!/usr/bin/env bash
# Installs Debian's gdal-bin for the tests that compare mapwarden's pixels and files with GDAL's
# (gdalwarp, gdal_translate, gdalinfo). Idempotent: does nothing when gdalwarp is on the PATH.
set -euo pipefail
# curl too: test/e2e/readme-walk.test.ts runs the README's curl recipes as written.
if ! command -v curl >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then CURL_SUDO='sudo'; else CURL_SUDO=''; fi
  $CURL_SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive $CURL_SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends curl >/dev/null
fi
if command -v gdalwarp >/dev/null 2>&1 && command -v gdal_translate >/dev/null 2>&1; then
  exit 0
fi
SUDO=''
if [ "$(id -u)" != 0 ]; then SUDO='sudo'; fi
$SUDO apt-get -o DPkg::Lock::Timeout=900 update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends gdal-bin
if ! command -v gdalwarp >/dev/null 2>&1; then
  echo 'install-gdal.sh: apt-get finished but gdalwarp is missing' >&2
  exit 1
fi
gdalwarp --version
