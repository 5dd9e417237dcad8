#!/bin/sh
# What `npm test` needs beside node_modules (run by npm as `pretest`, and by .ci/run): a
# real nats-server (the NATS specs start their own on a free port) and Debian's Chromium
# (the console's browser specs; playwright-core downloads no browser), with a Thai font so
# the screenshots are legible. Installed from Debian's packages when missing and this user
# is root; otherwise it says what to install and the specs that need it will say so too.
set -eu
missing=""
if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/sbin/nats-server ]; then missing="$missing nats-server"; fi
if [ ! -x "${SATANG_CHROMIUM:-/usr/bin/chromium}" ]; then missing="$missing chromium fonts-thai-tlwg"; fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing for the tests:$missing" >&2
  apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y $missing >/dev/null
else
  echo "the tests need:$missing (apt-get install$missing)" >&2
fi
