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
runs="${2:-15}"
. bench/lib.sh
start_partnerd console-fcp "${1:-bin/partnerd}"
cd web
node e2e/fcp.mjs "http://$http" "$runs"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
