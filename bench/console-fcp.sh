#!/usr/bin/env bash
# First contentful paint of the console's login page against a real partnerd serve: starts the
# binary named by $1 (bin/partnerd by default; built with the console: make web, then make
# build) on a fresh data directory with the embedded database and Temporal, waits until it is
# ready, and runs web/e2e/fcp.mjs: N cold loads of /login (a new browser context each) beside
# the same page with JavaScript off from the same server, median and p95 of both. Builds
# nothing; needs web/node_modules (make web) and Debian's chromium (CHROMIUM overrides it).
#
# Usage: bench/console-fcp.sh [binary] [runs]      (from the repository root; runs default 15)
# Environment (defaults): BENCH_HTTP_PORT=18090 BENCH_TEMPORAL_PORT=17290
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-bin/partnerd}"
[[ "$bin" = /* ]] || bin="$(pwd)/$bin"
runs="${2:-15}"
[[ -x "$bin" ]] || { echo "console-fcp: no binary at $bin (make web build)" >&2; exit 1; }
[[ -d web/node_modules ]] || { echo "console-fcp: web/node_modules is missing (make web)" >&2; exit 1; }
data="$(mktemp -d)"
http="127.0.0.1:${BENCH_HTTP_PORT:-18090}"
password="fcp-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
PARTNERD_BOOTSTRAP_PASSWORD="$password" PARTNERD_LOG_LEVEL=warn "$bin" serve -data-dir "$data" -http-addr "$http" \
	-temporal-port "${BENCH_TEMPORAL_PORT:-17290}" >"$data/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true; rm -rf "$data"' EXIT
for _ in $(seq 1 180); do
	if curl -fsS "http://$http/readyz" >/dev/null 2>&1; then break; fi
	if ! kill -0 $server 2>/dev/null; then cat "$data/serve.log" >&2; echo "console-fcp: partnerd serve exited" >&2; exit 1; fi
	sleep 1
done
curl -fsS "http://$http/readyz" >/dev/null || { cat "$data/serve.log" >&2; echo "console-fcp: partnerd serve not ready" >&2; exit 1; }
echo "$("$bin" version 2>/dev/null | head -1 || true) ready at http://$http; load average $(cut -d' ' -f1-3 /proc/loadavg)"
cd web
node e2e/fcp.mjs "http://$http" "$runs"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
