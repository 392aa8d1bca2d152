#!/usr/bin/env bash
# Installs the Debian clients the WMS tests read mapwarden with: python3-owslib (OWSLib, as QGIS
# plugins and scripts use it), libxml2-utils (xmllint) and python3-mapproxy, whose package ships the
# OGC WMS schemas and DTDs (/usr/share/python3-mapproxy/test/schemas) the documents are validated
# against; fontconfig and the fonts the project ships, which librsvg draws vector labels with (the
# label tests of WMS maps, rest/fonts; the Dockerfile installs the same): fonts-dejavu-core and
# fonts-dejavu-extra (DejaVu Sans, Serif and Sans Mono with their bold, italic and condensed faces;
# DejaVu Sans is every label's fallback) and fonts-liberation2 (Liberation Sans, Serif and Mono,
# metric-compatible with Arial, Times New Roman and Courier New, which fontconfig's aliases draw
# with them); cgi-mapserver, MapServer 8's mapserv CGI, the independent renderer
# test/plugins/wms/mapserver-agreement.test.ts compares vector maps with.
# gdal-bin (GDAL's WMS driver) comes from install-gdal.sh. Idempotent and quiet when present.
set -euo pipefail
SCHEMA=/usr/share/python3-mapproxy/test/schemas/wms/1.3.0/capabilities_1_3_0.xsd
if command -v xmllint >/dev/null 2>&1 && /usr/bin/python3 -c 'import owslib' >/dev/null 2>&1 && [ -f "$SCHEMA" ] && command -v fc-list >/dev/null 2>&1 && [ -n "$(fc-list 'DejaVu Sans' family)" ] && [ -n "$(fc-list 'Liberation Serif' family)" ] && [ -x /usr/lib/cgi-bin/mapserv ]; then
  exit 0
fi
SUDO=''
if [ "$(id -u)" != 0 ]; then SUDO='sudo'; fi
$SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends python3-owslib libxml2-utils python3-mapproxy fontconfig fonts-dejavu-core fonts-dejavu-extra fonts-liberation2 cgi-mapserver >/dev/null
if ! command -v xmllint >/dev/null 2>&1 || ! /usr/bin/python3 -c 'import owslib' >/dev/null 2>&1 || [ ! -f "$SCHEMA" ] || [ -z "$(fc-list 'DejaVu Sans' family)" ] || [ -z "$(fc-list 'Liberation Serif' family)" ] || [ ! -x /usr/lib/cgi-bin/mapserv ]; then
  echo 'install-wms-tools.sh: apt-get finished but xmllint, OWSLib, the WMS schemas, fonts or mapserv are missing' >&2
  exit 1
fi
