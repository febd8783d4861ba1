# Shared by the browser benches: start_partnerd NAME BINARY starts `partnerd serve` (embedded
# database and Temporal) on a fresh data directory at 127.0.0.1:$BENCH_HTTP_PORT (18090) with
# Temporal on $BENCH_TEMPORAL_PORT (17290), waits until /readyz answers and sets http (the
# address) and password (the demo owner's). The server and its data directory go on exit.
# Source it from the repository root.

start_partnerd() {
	local name="$1" bin="$2"
	[[ "$bin" = /* ]] || bin="$(pwd)/$bin"
	[[ -x "$bin" ]] || { echo "$name: no binary at $bin (make web build)" >&2; exit 1; }
	[[ -d web/node_modules ]] || { echo "$name: web/node_modules is missing (make web)" >&2; exit 1; }
	data="$(mktemp -d)"
	http="127.0.0.1:${BENCH_HTTP_PORT:-18090}"
	password="$name-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
	PARTNERD_BOOTSTRAP_PASSWORD="$password" PARTNERD_LOG_LEVEL=warn "$bin" serve -data-dir "$data" -http-addr "$http" \
		-temporal-port "${BENCH_TEMPORAL_PORT:-17290}" >"$data/serve.log" 2>&1 &
	server=$!
	trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true; rm -rf "$data"' EXIT
	for _ in $(seq 1 180); do
		if curl -fsS "http://$http/readyz" >/dev/null 2>&1; then break; fi
		if ! kill -0 $server 2>/dev/null; then cat "$data/serve.log" >&2; echo "$name: partnerd serve exited" >&2; exit 1; fi
		sleep 1
	done
	curl -fsS "http://$http/readyz" >/dev/null || { cat "$data/serve.log" >&2; echo "$name: partnerd serve not ready" >&2; exit 1; }
	echo "$("$bin" version 2>/dev/null | head -1 || true) ready at http://$http; load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
