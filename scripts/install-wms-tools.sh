#!/usr/bin/env bash
# Installs the Debian clients the WMS tests read mapwarden with: python3-owslib (OWSLib, as QGIS
# plugins and scripts use it) and libxml2-utils (xmllint, well-formedness of the documents).
# gdal-bin (GDAL's WMS driver) comes from install-gdal.sh. Idempotent and quiet when present.
set -euo pipefail
if command -v xmllint >/dev/null 2>&1 && /usr/bin/python3 -c 'import owslib' >/dev/null 2>&1; then
  exit 0
fi
SUDO=''
if [ "$(id -u)" != 0 ]; then SUDO='sudo'; fi
$SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends python3-owslib libxml2-utils >/dev/null
if ! command -v xmllint >/dev/null 2>&1 || ! /usr/bin/python3 -c 'import owslib' >/dev/null 2>&1; then
  echo 'install-wms-tools.sh: apt-get finished but xmllint or OWSLib is missing' >&2
  exit 1
fi
