#!/usr/bin/env bash
# The database's own ceiling for loading the events table: two psql clients COPY 250 000 rows each,
# shaped like ingested events (UUIDv7-like ordered ids, an eventId each), in parallel, and the rows
# per second are printed. No HTTP, no JSON: what Postgres alone does with the machine's cores.
#
# Usage: bench/copyceiling.sh   with PGHOST/PGPORT/PGUSER/BENCH_DB naming a database that
# bench/server migrated and seeded (e.g. during bench/ingest.sh, or BENCH_PG=shared after it).
set -euo pipefail
DB="${BENCH_DB:-partnerd_bench}"
ROWS="${BENCH_COPY_ROWS:-250000}"
tenant="$(psql -d "$DB" -Atc "SELECT id FROM tenants WHERE slug = 'bench'")"
customer="$(psql -d "$DB" -Atc "SELECT id FROM customers WHERE tenant_id = '$tenant' ORDER BY id LIMIT 1")"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
run="$(date +%s)"
for f in 1 2; do
	psql -d "$DB" -Atc "COPY (SELECT 'f$run$f' || lpad(g::text, 24, '0'), '$tenant', 'feature.used', 'ingest',
		'$customer', NULL, 'machine_key', 'bench', 0, 'copy-$run-$f-' || g, '{\"feature\":\"export\",\"seats\":7,\"plan\":\"pro\"}',
		now(), now() FROM generate_series(1, $ROWS) g) TO STDOUT" >"$dir/$f.tsv"
done
psql -d "$DB" -qAtc "CHECKPOINT" >/dev/null
start="$(date +%s.%N)"
for f in 1 2; do
	psql -d "$DB" -qc "\\copy events (id, tenant_id, type, source, customer_id, partner_id, actor_kind, actor_id, depth, external_id, payload, occurred_at, received_at) FROM '$dir/$f.tsv'" &
done
wait
end="$(date +%s.%N)"
awk -v n=$((2 * ROWS)) -v s="$(echo "$end - $start" | bc)" 'BEGIN { printf "COPY of %d rows from 2 clients: %.1f s, %.0f rows/s\n", n, s, n / s }'
