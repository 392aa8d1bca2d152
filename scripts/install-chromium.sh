#!/usr/bin/env bash
# Installs Debian's chromium for the admin page's end-to-end test (test/e2e/web.test.ts).
# Idempotent: does nothing when /usr/bin/chromium is there. Fails loudly otherwise.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
SUDO=''
if [ "$(id -u)" != 0 ]; then SUDO='sudo'; fi
$SUDO apt-get -o DPkg::Lock::Timeout=900 update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends chromium
if [ ! -x /usr/bin/chromium ]; then
  echo 'install-chromium.sh: apt-get finished but /usr/bin/chromium is missing' >&2
  exit 1
fi
/usr/bin/chromium --version
