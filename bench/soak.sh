#!/usr/bin/env bash
# The soak: `partnerd serve` on a fresh Postgres database (embedded Temporal server, as `make run`
# but on Postgres) under a mixed load for BENCH_SOAK_DURATION: events ingested and delivered to a
# webhook receiver, deals won (each starting a playbook run and an accrual), withdrawals paid.
# /metrics is read every 10 s; the samples go to bench/out/soak.csv and the plot to
# bench/soak.png; the run fails when anything was lost or doubled.
#
# Usage: bench/soak.sh                 (from the repository root)
# Environment (defaults): BENCH_BIN (a build to measure; default: built from this tree), BENCH_SOAK_DURATION=30m BENCH_SOAK_INGEST_RATE=20 BENCH_ADDR=127.0.0.1:8095
#   BENCH_ADMIN_ADDR=127.0.0.1:9099 BENCH_TEMPORAL_PORT=7295
#   BENCH_PG=postgres://postgres@127.0.0.1:5432 (a server where the script may create a database)
#   BENCH_OUT=bench/out (the samples, logs and builds) BENCH_PNG=bench/soak.png (the plot);
#   other PARTNERD_* settings pass through to serve (two soaks side by side need their own
#   BENCH_ADDR, BENCH_ADMIN_ADDR, BENCH_TEMPORAL_PORT and BENCH_OUT)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${BENCH_OUT:-bench/out}"
mkdir -p "$OUT"
ADDR="${BENCH_ADDR:-127.0.0.1:8095}"
ADMIN="${BENCH_ADMIN_ADDR:-127.0.0.1:9099}"
PG="${BENCH_PG:-postgres://postgres@127.0.0.1:5432}"
db="partnerd_soak_$(date +%s)_$$"
BIN="${BENCH_BIN:-$OUT/partnerd}"
[ -n "${BENCH_BIN:-}" ] || go build -o "$OUT/partnerd" ./cmd/partnerd
go build -o "$OUT/soak" ./bench/soak
psql "$PG/postgres" -qc "CREATE DATABASE $db"
data="$(mktemp -d)"
password="soak-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
DATABASE_URL="$PG/$db?sslmode=disable" PARTNERD_BOOTSTRAP_EMAIL=founder@example.test PARTNERD_BOOTSTRAP_PASSWORD="$password" \
	PARTNERD_LOG_LEVEL=warn PARTNERD_WEBHOOK_ALLOWED_NETWORKS=127.0.0.0/8 PARTNERD_ADMIN_ADDR="$ADMIN" \
	"$BIN" serve -data-dir "$data" -http-addr "$ADDR" -temporal-port "${BENCH_TEMPORAL_PORT:-7295}" >"$OUT/soak-serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true; rm -rf "$data"; psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
for _ in $(seq 1 180); do curl -fsS "http://$ADDR/readyz" >/dev/null 2>&1 && break; sleep 1; done
echo "serving at http://$ADDR; load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$OUT/soak" -url "http://$ADDR" -metrics "http://$ADMIN/metrics" -password "$password" \
	-duration "${BENCH_SOAK_DURATION:-30m}" -ingest-rate "${BENCH_SOAK_INGEST_RATE:-20}" \
	-csv "$OUT/soak.csv" -png "${BENCH_PNG:-bench/soak.png}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
