#!/usr/bin/env bash
# Installs the Debian programs `npm run bench` compares mapwarden with: gdal-bin (gdal2tiles.py),
# python3-mapscript (MapServer 8 in a Python HTTP server, the WMS bench), cgi-mapserver (the
# mapserv CGI MapProxy calls) and python3-mapproxy (MapProxy 1.15 and its seed tool), plus
# python3-gdal and python3-numpy, which the benchmark mosaic generator needs. Idempotent and quiet
# when present; the bench runs it itself (as root) when one of them is missing.
set -euo pipefail
have () {
  command -v gdal2tiles.py >/dev/null 2>&1 && [ -x /usr/lib/cgi-bin/mapserv ] &&
    /usr/bin/python3 -c 'import mapscript, mapproxy.seed.script, osgeo.gdal, numpy' >/dev/null 2>&1
}
if have; then exit 0; fi
SUDO=''
if [ "$(id -u)" != 0 ]; then SUDO='sudo'; fi
$SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends \
  gdal-bin python3-gdal python3-numpy python3-mapscript cgi-mapserver python3-mapproxy >/dev/null
if ! have; then
  echo 'install-bench-tools.sh: apt-get finished but gdal2tiles.py, mapserv, mapscript or mapproxy is missing' >&2
  exit 1
fi
