#!/usr/bin/env bash
# Measures event ingest on Postgres in one run, on loopback, and prints a summary:
#   1. raw single-row INSERT rate into the events table (pgbench, 32 clients) — the baseline;
#   2. POST /api/events/ingest with wrk, 32 connections: rate and latency distribution;
#   3. the p99 of POST /api/events/ingest at a fixed rate of 60 % of the raw INSERT rate
#      (bench/ingestload -rate, open loop, 32 clients), and (3a, first) at 60 % of the closed-loop rate of
#      step 2, with the per-second timeline of each;
#   4. raw 500-row INSERTs (pgbench) — the database's ceiling for batches — and
#      POST /api/events/batch with bench/ingestload, 500 events per request: events/s;
#   5. an exactly-once check: single and batch load with racing duplicate eventIds, then every
#      acknowledged eventId is counted in the database.
# It creates (and drops first) its own database; never point it at the database tests use.
#
# Usage: bench/ingest.sh            (from the repository root)
# Environment (defaults):
#   PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres BENCH_DB=partnerd_bench
#   BENCH_ADDR=127.0.0.1:8089 BENCH_DURATION=30 (seconds per pgbench/wrk run) BENCH_CONNS=32
#   BENCH_LOG_LEVEL=info (the server's request log; info logs every request, as serve does)
#   BENCH_CUSTOMERS=1000 BENCH_BATCH_REQUESTS=400 (batch requests of 500 events)
#   BENCH_SERVER (empty: build bench/server from this tree; else the bench server binary to measure,
#     e.g. one built from an earlier commit, so that two builds are compared in one session)
#   BENCH_PG=dedicated: initdb and start a Postgres of this machine's version for the run alone, on
#     127.0.0.1:$BENCH_PGPORT (5499), configured as for a write-heavy service (BENCH_PG_SETTINGS);
#     BENCH_PG=shared: use the server at PGHOST:PGPORT as it is configured.
set -euo pipefail
cd "$(dirname "$0")/.."

export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
PG_MODE="${BENCH_PG:-dedicated}"
# Durability stays as shipped (fsync, synchronous_commit and full_page_writes on). Memory and WAL
# are sized for a write-heavy service: 4 GB of buffers (a sixth of this machine), WAL kept and
# recycled up to 4 GB so that commits never wait for a new segment file to be zero-filled, and
# checkpoints spread over 30 minutes.
PG_SETTINGS="${BENCH_PG_SETTINGS:--c shared_buffers=4GB -c wal_buffers=64MB -c min_wal_size=4GB -c max_wal_size=16GB -c checkpoint_timeout=30min -c wal_compression=lz4 -c max_connections=200}"
# BENCH_WATCH=1 also records, during the open-loop run (3), what else happened second by second:
# vmstat, autovacuum and checkpoint log lines, and the server's and the driver's GC (gctrace)
# into bench/out/watch-*; BENCH_WATCH=2 adds the Postgres backends that were not idle, sampled
# every 250 ms (a psql each time: it costs the run some CPU).
WATCH="${BENCH_WATCH:-}"
if [ -n "$WATCH" ]; then
	PG_SETTINGS="$PG_SETTINGS -c log_autovacuum_min_duration=0 -c log_checkpoints=on -c log_line_prefix=%m_[%p]_ -c log_min_duration_statement=100"
fi
DB="${BENCH_DB:-partnerd_bench}"
ADDR="${BENCH_ADDR:-127.0.0.1:8089}"
DURATION="${BENCH_DURATION:-30}"
CONNS="${BENCH_CONNS:-32}"
LOG_LEVEL="${BENCH_LOG_LEVEL:-info}"
CUSTOMERS="${BENCH_CUSTOMERS:-1000}"
BATCH_REQUESTS="${BENCH_BATCH_REQUESTS:-400}"
OUT=bench/out
URL="postgres://${PGUSER}@${PGHOST}:${PGPORT}/${DB}?sslmode=disable"

if [ "$DB" = test ]; then
	echo "refusing to use the database the tests use" >&2
	exit 2
fi
for tool in pgbench wrk psql createdb go; do
	command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y wrk postgresql-client)" >&2; exit 2; }
done
mkdir -p "$OUT"

echo "== build"
if [ -n "${BENCH_SERVER:-}" ]; then cp "$BENCH_SERVER" "$OUT/server"; else go build -o "$OUT/server" ./bench/server; fi
go build -o "$OUT/ingestload" ./bench/ingestload

PGDIR=""
stop_pg() {
	[ -n "$PGDIR" ] || return 0
	as_pg "$(pg_config --bindir)/pg_ctl" -D "$PGDIR/data" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$PGDIR"
}
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "$PG_MODE" = dedicated ]; then
	PGDIR="$(mktemp -d /tmp/partnerd-bench-pg.XXXXXX)"
	[ "$(id -u)" = 0 ] && chown postgres "$PGDIR"
	export PGPORT="${BENCH_PGPORT:-5499}" PGHOST=127.0.0.1
	URL="postgres://${PGUSER}@${PGHOST}:${PGPORT}/${DB}?sslmode=disable"
	echo "== dedicated Postgres in $PGDIR on port $PGPORT: $PG_SETTINGS"
	trap stop_pg EXIT
	as_pg "$(pg_config --bindir)/initdb" -D "$PGDIR/data" -U "$PGUSER" --auth=trust -E UTF8 --locale=C.UTF-8 >"$OUT/initdb.log"
	# shellcheck disable=SC2086 # PG_SETTINGS is a list of options
	as_pg "$(pg_config --bindir)/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w \
		-o "-c port=$PGPORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$PGDIR $PG_SETTINGS" start >/dev/null
fi

echo "== database $DB (recreated)"
dropdb --if-exists "$DB"
createdb "$DB"

echo "== server on $ADDR (log level $LOG_LEVEL)"
rm -f "$OUT/key"
GODEBUG="${WATCH:+gctrace=1}" "$OUT/server" -db "$URL" -addr "$ADDR" -keyfile "$OUT/key" -customers "$CUSTOMERS" \
	-log-level "$LOG_LEVEL" -pprof "${BENCH_PPROF:-}" >"$OUT/server.out" 2>"$OUT/server.log" &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; stop_pg' EXIT
for _ in $(seq 1 600); do
	[ -s "$OUT/key" ] && grep -q "bench server on" "$OUT/server.out" 2>/dev/null && break
	kill -0 "$SERVER" 2>/dev/null || { cat "$OUT/server.log" >&2; exit 1; }
	sleep 0.1
done
KEY="$(cat "$OUT/key")"
TENANT="$(psql -d "$DB" -Atc "SELECT id FROM tenants WHERE slug = 'bench'")"
CUSTOMER="$(psql -d "$DB" -Atc "SELECT id FROM customers WHERE tenant_id = '$TENANT' ORDER BY id LIMIT 1")"
RUN="wrk-$(date +%s)"

echo "== load before: $(uptime)"

echo "== 1. raw INSERT: pgbench -n -M prepared -c $CONNS -j 2 -T $DURATION -f bench/rawinsert.sql"
pgbench -n -M prepared -c "$CONNS" -j 2 -T "$DURATION" -f bench/rawinsert.sql \
	-D tenant="$TENANT" -D customer="$CUSTOMER" "$DB" | tee "$OUT/pgbench.txt"
RAW_TPS="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$OUT/pgbench.txt" | head -1)"

echo "== 2. single ingest: wrk -t2 -c$CONNS -d${DURATION}s --latency -s bench/ingest.lua (after a 5 s warm-up)"
BENCH_KEY="$KEY" BENCH_RUN="warm-$RUN" BENCH_CUSTOMERS="$CUSTOMERS" \
	wrk -t2 -c"$CONNS" -d5s -s bench/ingest.lua "http://$ADDR" >"$OUT/wrk-warmup.txt"
psql -d "$DB" -qAtc "CHECKPOINT" >/dev/null
BENCH_KEY="$KEY" BENCH_RUN="$RUN" BENCH_CUSTOMERS="$CUSTOMERS" \
	wrk -t2 -c"$CONNS" -d"${DURATION}s" --latency -s bench/ingest.lua "http://$ADDR" | tee "$OUT/wrk.txt"
WRK_RATE="$(sed -n 's/^rate \([0-9.]*\) req\/s/\1/p' "$OUT/wrk.txt")"
WRK_P99="$(sed -n 's/^latency p99 \([0-9.]*\) ms/\1/p' "$OUT/wrk.txt")"
WRK_BAD="$(sed -n 's/^requests [0-9]*, non-200 \([0-9]*\),.*/\1/p' "$OUT/wrk.txt")"
WRK_ROWS="$(psql -d "$DB" -Atc "SELECT count(*) FROM events WHERE external_id LIKE '$RUN-%'")"
WRK_DISTINCT="$(psql -d "$DB" -Atc "SELECT count(DISTINCT external_id) FROM events WHERE external_id LIKE '$RUN-%'")"

# 3a. An open loop at 60 % of the closed-loop single-ingest rate of step 2: a load this box's
# HTTP path holds, whatever the disk lets pgbench reach, so its per-second timeline shows
# episodes rather than a queue that never drains. After a CHECKPOINT and a 10 s warm-up, as 3.
HELD_RATE="$(awk -v r="$WRK_RATE" 'BEGIN { printf "%.0f", 0.6 * r }')"
echo "== 3a. CHECKPOINT, a 10 s warm-up, then single ingest at 60 % of the closed-loop rate: ingestload -rate $HELD_RATE -timeline"
psql -d "$DB" -qAtc "CHECKPOINT" >/dev/null
"$OUT/ingestload" -url "http://$ADDR" -keyfile "$OUT/key" -rate "$HELD_RATE" -clients "$CONNS" \
	-requests "$((HELD_RATE * 10))" -duration 40s -dup 0 -customers "$CUSTOMERS" >"$OUT/held-warmup.txt"
"$OUT/ingestload" -url "http://$ADDR" -keyfile "$OUT/key" -rate "$HELD_RATE" -clients "$CONNS" \
	-requests "$((HELD_RATE * DURATION))" -duration "$((DURATION + 30))s" -dup 0 -customers "$CUSTOMERS" -timeline | tee "$OUT/held.txt"
HELD_P99="$(sed -n 's/^latency .*p99 \([0-9.]*\) ms.*/\1/p' "$OUT/held.txt")"
HELD_WORST="$(sed -n 's/^second .* p99 *\([0-9.]*\) ms.*/\1/p' "$OUT/held.txt" | sort -g | tail -1)"

PACED_RATE="$(awk -v r="$RAW_TPS" 'BEGIN { printf "%.0f", 0.6 * r }')"
PACED_REQUESTS=$((PACED_RATE * DURATION))
# A CHECKPOINT recycles the WAL written so far, as on a running server; the first writes to each
# page after it log the whole page, so a 10 s warm-up at the paced rate runs between the two.
echo "== 3. CHECKPOINT, then a 10 s warm-up at the paced rate"
psql -d "$DB" -qAtc "CHECKPOINT" >/dev/null
"$OUT/ingestload" -url "http://$ADDR" -keyfile "$OUT/key" -rate "$PACED_RATE" -clients "$CONNS" \
	-requests "$((PACED_RATE * 10))" -duration 40s -dup 0 -customers "$CUSTOMERS" >"$OUT/paced-warmup.txt"
echo "== 3. single ingest at 60 % of raw: ingestload -rate $PACED_RATE -clients $CONNS -requests $PACED_REQUESTS -dup 0"
WATCHERS=()
if [ -n "$WATCH" ]; then
	echo "paced run starts $(date -u +%H:%M:%S.%N)" >"$OUT/watch-start.txt"
	vmstat -t 1 >"$OUT/watch-vmstat.txt" & WATCHERS+=($!)
	if [ "$WATCH" = 2 ]; then
		( while :; do
		psql -d "$DB" -qAtF' ' -c "SELECT to_char(clock_timestamp(),'HH24:MI:SS.MS'), backend_type, state, coalesce(wait_event_type,'-'), coalesce(wait_event,'-'), left(regexp_replace(query,'\s+',' ','g'),60) FROM pg_stat_activity WHERE state IS DISTINCT FROM 'idle' AND pid <> pg_backend_pid() AND backend_type NOT IN ('checkpointer','background writer','walwriter','logical replication launcher','autovacuum launcher')" 2>/dev/null
		sleep 0.25
		done ) >"$OUT/watch-activity.txt" &
		WATCHERS+=($!)
	fi
fi
GODEBUG="${WATCH:+gctrace=1}" "$OUT/ingestload" -url "http://$ADDR" -keyfile "$OUT/key" -db "$URL" -rate "$PACED_RATE" -clients "$CONNS" \
	-requests "$PACED_REQUESTS" -duration "$((DURATION + 30))s" -dup 0 -customers "$CUSTOMERS" -timeline 2>"$OUT/paced.err" | tee "$OUT/paced.txt"
grep -v "^gc " "$OUT/paced.err" >&2 || true
for w in "${WATCHERS[@]}"; do kill "$w" 2>/dev/null || true; done
[ -n "$WATCH" ] && [ -n "$PGDIR" ] && cp "$PGDIR/log" "$OUT/watch-postgres.log"
PACED_OK="$(sed -n 's/^requests ok \([0-9]*\) (\([0-9.]*\)\/s).*/\2/p' "$OUT/paced.txt")"

PACED_P99="$(sed -n 's/^latency .*p99 \([0-9.]*\) ms.*/\1/p' "$OUT/paced.txt")"

echo "== 4a. raw 500-row INSERT: pgbench -n -M prepared -c 4 -j 2 -T $DURATION -f bench/rawbatch.sql"
pgbench -n -M prepared -c 4 -j 2 -T "$DURATION" -f bench/rawbatch.sql \
	-D tenant="$TENANT" -D customer="$CUSTOMER" "$DB" | tee "$OUT/pgbench-batch.txt"
RAW_BATCH_ROWS="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$OUT/pgbench-batch.txt" | head -1 | awk '{ printf "%.0f", $1 * 500 }')"

psql -d "$DB" -qAtc "CHECKPOINT" >/dev/null
echo "== 4b. batch ingest: ingestload -batch 500 -clients 4 -requests $BATCH_REQUESTS -dup 0"
"$OUT/ingestload" -url "http://$ADDR" -keyfile "$OUT/key" -db "$URL" -batch 500 -clients 4 \
	-requests "$BATCH_REQUESTS" -dup 0 -customers "$CUSTOMERS" | tee "$OUT/batch.txt"
BATCH_RATE="$(sed -n 's/.*events acknowledged [0-9]* (\([0-9.]*\)\/s).*/\1/p' "$OUT/batch.txt")"

echo "== 5. exactly-once under racing duplicates"
"$OUT/ingestload" -url "http://$ADDR" -keyfile "$OUT/key" -db "$URL" -clients 32 \
	-requests 20000 -dup 0.1 -customers "$CUSTOMERS" | tee "$OUT/once-single.txt" || true
"$OUT/ingestload" -url "http://$ADDR" -keyfile "$OUT/key" -db "$URL" -batch 100 -clients 16 \
	-requests 400 -dup 0.1 -customers "$CUSTOMERS" | tee "$OUT/once-batch.txt" || true

echo "== load after: $(uptime)"

ratio="$(awk -v a="$WRK_RATE" -v b="$RAW_TPS" 'BEGIN { printf "%.0f", 100 * a / b }')"
verdict() { if awk "BEGIN { exit !($1) }"; then echo met; else echo MISSED; fi; }
cat <<EOF | tee "$OUT/summary.txt"

== summary ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, Postgres $(psql -d "$DB" -Atc 'SHOW server_version'), $PG_MODE)
raw single-row INSERT (pgbench, $CONNS clients):  ${RAW_TPS} rows/s
single ingest (wrk, $CONNS connections):          ${WRK_RATE} req/s = ${ratio} % of raw  [target >= 60 %: $(verdict "$ratio >= 60")]
single ingest p99, closed loop at that rate:      ${WRK_P99} ms
single ingest p99 at 60 % of raw (${PACED_RATE}/s, open loop): ${PACED_P99} ms, achieved ${PACED_OK} req/s  [target < 25 ms: $(verdict "$PACED_P99 < 25")]
single ingest p99 at 60 % of the closed-loop rate (${HELD_RATE}/s, open loop, 3a): ${HELD_P99} ms, worst second's p99 ${HELD_WORST} ms
single ingest non-200 answers:                    ${WRK_BAD}; rows ${WRK_ROWS} for ${WRK_DISTINCT} eventIds
raw 500-row INSERT (pgbench, 4 clients):          ${RAW_BATCH_ROWS} rows/s
batch ingest (500 per request, 4 clients):        ${BATCH_RATE} events/s  [target >= 50000: $(verdict "$BATCH_RATE >= 50000")]
exactly-once (single):                            $(grep -c 'exactly-once: OK' "$OUT/once-single.txt" | sed 's/1/OK/;s/^0$/FAILED/')
exactly-once (batch):                             $(grep -c 'exactly-once: OK' "$OUT/once-batch.txt" | sed 's/1/OK/;s/^0$/FAILED/')
EOF
