#!/usr/bin/env bash
# Starts partnerd serve with the console built in (the binary named by $1, bin/partnerd by
# default; embedded database and Temporal, a data directory of its own, ports apart from a
# developer's), waits until it is ready, and runs the browser tests against it. Called by
# make test-e2e from the repository root. PARTNERD_CONSOLE_DIR=web/dist/console serves a fresh
# vite build without relinking the binary; E2E_HTTP_PORT and E2E_TEMPORAL_PORT move the ports.
# Host routing is on (own hosts localhost and app.example.test; the specs use 127.0.0.1, which
# is always served) and custom domains are verified against spec 58's DNS server: E2E_DNS_PORT
# (UDP), E2E_TLS_PORT (its TLS front of *.example.test) and E2E_FOREIGN_PORT (another site).
set -euo pipefail
bin="${1:-bin/partnerd}"
[[ "$bin" = /* ]] || bin="$(pwd)/$bin"
data="$(mktemp -d)"
http="127.0.0.1:${E2E_HTTP_PORT:-18080}"
export E2E_DNS_PORT="${E2E_DNS_PORT:-18053}" E2E_TLS_PORT="${E2E_TLS_PORT:-18443}" E2E_FOREIGN_PORT="${E2E_FOREIGN_PORT:-18081}"
password="e2e-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
PARTNERD_BOOTSTRAP_PASSWORD="$password" "$bin" serve -data-dir "$data" -http-addr "$http" \
	-temporal-port "${E2E_TEMPORAL_PORT:-17233}" -own-hosts localhost,app.example.test \
	-dns-resolver "127.0.0.1:$E2E_DNS_PORT" >"$data/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true; rm -rf "$data"' EXIT
for _ in $(seq 1 180); do
	if curl -fsS "http://$http/readyz" >/dev/null 2>&1; then break; fi
	if ! kill -0 $server 2>/dev/null; then cat "$data/serve.log" >&2; echo "e2e: partnerd serve exited" >&2; exit 1; fi
	sleep 1
done
curl -fsS "http://$http/readyz" >/dev/null || { cat "$data/serve.log" >&2; echo "e2e: partnerd serve not ready" >&2; exit 1; }
cd web
PARTNERD_URL="http://$http" EMAIL="owner@demo.partnerd.test" PASSWORD="$password" node e2e/run.mjs
