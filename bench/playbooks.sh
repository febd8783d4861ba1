#!/usr/bin/env bash
# Measures playbook runs on the embedded server: builds partnerd, serves it on a fresh data
# directory (embedded database and Temporal), starts BENCH_RUNS runs within BENCH_WITHIN by
# ingesting one event each, waits until all have completed, checks that no run was lost or
# duplicated, and reports the time to drain and the server's memory (API, worker and embedded
# Temporal share the process).
#
# Usage: bench/playbooks.sh            (from the repository root)
# Environment (defaults): BENCH_RUNS=1000 BENCH_WITHIN=50s BENCH_WAIT=1s BENCH_ADDR=127.0.0.1:8090
#   BENCH_TEMPORAL_PORT=7299 DATABASE_URL (empty: the embedded database)
#   BENCH_BIN (empty: build partnerd from this tree; else the partnerd binary to measure, so that
#   two builds are compared in one session)
#   BENCH_TIMEOUT=10m (give up draining after this long)
#   BENCH_PPROF (empty; e.g. 127.0.0.1:6061 with a binary built with -tags pprof: a 30 s CPU
#   profile from 10 s into the ingest to bench/out/playbooks-cpu.pprof)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${BENCH_RUNS:-1000}"
WITHIN="${BENCH_WITHIN:-50s}"
WAIT="${BENCH_WAIT:-1s}"
ADDR="${BENCH_ADDR:-127.0.0.1:8090}"
OUT=bench/out
mkdir -p "$OUT"
BIN="${BENCH_BIN:-$OUT/partnerd}"
[ -n "${BENCH_BIN:-}" ] || go build -o "$OUT/partnerd" ./cmd/partnerd
go build -o "$OUT/playbookload" ./bench/playbookload
DATA="$(mktemp -d)"
PASSWORD="bench-$(date +%s)-Password"
PARTNERD_DATA_DIR="$DATA" PARTNERD_HTTP_ADDR="$ADDR" PARTNERD_TEMPORAL_PORT="${BENCH_TEMPORAL_PORT:-7299}" \
	PARTNERD_BOOTSTRAP_EMAIL=bench@example.test PARTNERD_BOOTSTRAP_PASSWORD="$PASSWORD" PARTNERD_LOG_LEVEL=warn \
	PARTNERD_ADMIN_ADDR="${BENCH_ADMIN_ADDR:-off}" PARTNERD_PPROF_ADDR="${BENCH_PPROF:-}" \
	"$BIN" serve >"$OUT/playbooks-server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 120); do
	curl -fs "http://$ADDR/readyz" >/dev/null 2>&1 && break
	sleep 1
done
cpu() { awk '{print ($14+$15)/100}' "/proc/$SERVER/stat"; }
READY_CPU=$(cpu)
echo "server ready: pid $SERVER, RSS $(awk '/VmRSS/ {print $2/1024 " MiB"}' /proc/$SERVER/status); $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${BENCH_PPROF:-}" ]; then
	(sleep 12 && curl -fs -o "$OUT/playbooks-cpu.pprof" "http://$BENCH_PPROF/debug/pprof/profile?seconds=30") &
fi
rc=0
"$OUT/playbookload" -url "http://$ADDR" -password "$PASSWORD" -runs "$RUNS" -within "$WITHIN" -wait "$WAIT" -timeout "${BENCH_TIMEOUT:-10m}" -pid "$SERVER" -temporal "127.0.0.1:${BENCH_TEMPORAL_PORT:-7299}" | tee "$OUT/playbooks.txt" || rc=$?
echo "done $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg); server CPU from ready to done $(awk -v a="$READY_CPU" -v b="$(cpu)" -v n="$RUNS" 'BEGIN {printf "%.1f s (%.0f ms per run)", b-a, (b-a)*1000/n}')"
exit $rc
