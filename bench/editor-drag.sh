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
bin="${1:-bin/partnerd}"
[[ "$bin" = /* ]] || bin="$(pwd)/$bin"
runs="${2:-3}"
[[ -x "$bin" ]] || { echo "editor-drag: no binary at $bin (make web build)" >&2; exit 1; }
[[ -d web/node_modules ]] || { echo "editor-drag: web/node_modules is missing (make web)" >&2; exit 1; }
data="$(mktemp -d)"
http="127.0.0.1:${BENCH_HTTP_PORT:-18090}"
password="drag-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
PARTNERD_BOOTSTRAP_PASSWORD="$password" PARTNERD_LOG_LEVEL=warn "$bin" serve -data-dir "$data" -http-addr "$http" \
	-temporal-port "${BENCH_TEMPORAL_PORT:-17290}" >"$data/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true; rm -rf "$data"' EXIT
for _ in $(seq 1 180); do
	if curl -fsS "http://$http/readyz" >/dev/null 2>&1; then break; fi
	if ! kill -0 $server 2>/dev/null; then cat "$data/serve.log" >&2; echo "editor-drag: partnerd serve exited" >&2; exit 1; fi
	sleep 1
done
curl -fsS "http://$http/readyz" >/dev/null || { cat "$data/serve.log" >&2; echo "editor-drag: partnerd serve not ready" >&2; exit 1; }
echo "$("$bin" version 2>/dev/null | head -1 || true) ready at http://$http; load average $(cut -d' ' -f1-3 /proc/loadavg)"
cd web
EMAIL="owner@demo.partnerd.test" PASSWORD="$password" node e2e/editor-drag.mjs "http://$http" "$runs"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
