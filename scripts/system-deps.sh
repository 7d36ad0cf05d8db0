#!/usr/bin/env bash
# Debian packages the tests drive for real: chromium (the emulator dashboard), postgresql (database
# services), awscli (S3-compatible buckets), dig (the DNS server, as resolvers query it), faketime
# (the fast tier run at other dates, test/dates.test.ts); curl and jq, which the docs' commands use.
# Installed only when missing; needs root or sudo.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v aws >/dev/null 2>&1 || need+=(awscli)
command -v dig >/dev/null 2>&1 || need+=(bind9-dnsutils)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v jq >/dev/null 2>&1 || need+=(jq)
command -v faketime >/dev/null 2>&1 || need+=(faketime)
command -v postgres >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null || need+=(postgresql)
[ ${#need[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "system-deps: installing ${need[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
