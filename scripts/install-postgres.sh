#!/usr/bin/env bash
# PostgreSQL with PostGIS for the tests of the PostgreSQL backend. Where a server answers at
# MAPWARDEN_TEST_PG (default postgres://postgres@127.0.0.1:5432/postgres), only the PostGIS package
# is added when missing (Debian's postgresql-15-postgis-3, matching the server's major version).
# Where none answers, Debian's postgresql and postgis are installed, a cluster is started on
# 127.0.0.1:5432 and local TCP connections are trusted (a test machine's throwaway cluster).
# Idempotent.
set -euo pipefail
SUDO=''
if [ "$(id -u)" != 0 ]; then SUDO='sudo'; fi
apt_install () {
  $SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "$@" >/dev/null
}
command -v pg_isready >/dev/null 2>&1 || apt_install postgresql-client
if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  apt_install postgresql postgresql-contrib
  major=$(ls /usr/lib/postgresql | sort -n | tail -1)
  if ! pg_lsclusters -h 2>/dev/null | grep -q .; then $SUDO pg_createcluster "$major" main; fi
  cluster=$(pg_lsclusters -h | head -1 | awk '{print $1" "$2}')
  conf="/etc/postgresql/${cluster% *}/${cluster#* }"
  $SUDO sed -i -E "s/^#?listen_addresses.*/listen_addresses = '127.0.0.1'/; s/^#?port.*/port = 5432/" "$conf/postgresql.conf"
  printf 'local all all trust\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n' | $SUDO tee "$conf/pg_hba.conf" >/dev/null
  $SUDO pg_ctlcluster ${cluster} restart || $SUDO pg_ctlcluster ${cluster} start
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
version=$(psql -h 127.0.0.1 -U postgres -d postgres -Atc 'SHOW server_version_num')
major=$((version / 10000))
if [ ! -f "/usr/share/postgresql/$major/extension/postgis.control" ]; then
  apt_install "postgresql-$major-postgis-3"
fi
psql -h 127.0.0.1 -U postgres -d postgres -Atc 'SELECT 1' >/dev/null
