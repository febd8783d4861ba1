#!/usr/bin/env bash
# How the playbook editor holds up with a 200-node graph: starts the binary named by $1
# (bin/partnerd by default, built with the console; PARTNERD_CONSOLE_DIR=web/dist/console serves
# a fresh vite build) on a fresh data directory, and runs web/e2e/editor-drag.mjs: it saves a
# 200-node playbook through the API, opens it in the editor, records a Chromium Performance
# trace (CDP tracing) of a node dragged across the canvas and reports the longest frame and the
# longest main-thread task of the drag. Builds nothing; needs web/node_modules and chromium.
#
# Usage: bench/editor-drag.sh [binary] [drags]      (from the repository root; drags default 3)
# Environment (defaults): BENCH_HTTP_PORT=18090 BENCH_TEMPORAL_PORT=17290
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${2:-3}"
. bench/lib.sh
start_partnerd editor-drag "${1:-bin/partnerd}"
cd web
EMAIL="owner@demo.partnerd.test" PASSWORD="$password" node e2e/editor-drag.mjs "http://$http" "$runs"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
