#!/usr/bin/env bash
# A 200 MB content file streamed up and down through a real `partnerd serve` (issue 17, point 7:
# constant memory), beside a 2 MB file as the reference: starts the server on a fresh data
# directory (local blob directory, embedded database), logs in as the demo owner, creates one
# file item per size, uploads a generated PDF-typed file of that size (generated on the fly and
# streamed with chunked transfer encoding, never held in memory by curl), downloads it back and
# compares the SHA-256s. For each phase the server's peak RSS (VmHWM) is reset before
# (/proc/PID/clear_refs, where writable) and read after, so every number is that phase's own peak.
#
#   bench/content-stream.sh BINARY          # e.g. bin/partnerd-bench (go build -o … ./cmd/partnerd)
#
# Environment: BENCH_STREAM_MB (200), BENCH_STREAM_REF_MB (2), BENCH_HTTP_PORT, BENCH_TEMPORAL_PORT.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh
bin="${1:?usage: bench/content-stream.sh PARTNERD_BINARY}"
big_mb="${BENCH_STREAM_MB:-200}"
ref_mb="${BENCH_STREAM_REF_MB:-2}"

start_partnerd content-stream "$bin"
base="http://$http"
token="$(curl -fsS -H 'Content-Type: application/json' \
	-d "{\"email\":\"owner@demo.partnerd.test\",\"password\":\"$password\"}" "$base/api/auth/login" | jq -r .accessToken)"
auth=(-H "Authorization: Bearer $token")

kib() { awk -v k="$1" '$1 == k":" {print $2}' "/proc/$server/status"; }
reset_peak() { echo 5 >"/proc/$server/clear_refs" 2>/dev/null && echo reset || echo "not reset"; }
# file MB: a PDF header, then MB MiB in all of pseudo-random bytes.
file() { printf '%%PDF-1.7\n'; head -c $(($1 * 1024 * 1024 - 9)) /dev/urandom; }

printf '%-10s %-8s %12s %12s %12s %10s %10s %s\n' size phase "RSS before" "peak" "RSS after" seconds MiB/s sha256
idle="$(kib VmRSS)"
echo "server pid $server, RSS after start $((idle / 1024)) MiB (VmHWM $(($(kib VmHWM) / 1024)) MiB)"
for mb in "$ref_mb" "$big_mb"; do
	item="$(curl -fsS "${auth[@]}" -H 'Content-Type: application/json' \
		-d "{\"kind\":\"file\",\"title\":\"Stream $mb MB\"}" "$base/api/content/items" | jq -r .id)"
	sums="$(mktemp)"
	# Upload.
	before="$(kib VmRSS)"; r="$(reset_peak)"; start="$(date +%s.%N)"
	file "$mb" | tee >(sha256sum | cut -c1-64 >"$sums") |
		curl -fsS "${auth[@]}" -X POST -T - -H 'Content-Type: application/octet-stream' \
			"$base/api/content/items/$item/versions?fileName=stream-$mb.pdf" -o "$sums.version"
	end="$(date +%s.%N)"; peak="$(kib VmHWM)"; after="$(kib VmRSS)"
	sleep 0.2
	up_sha="$(cat "$sums")"
	[[ "$(jq -r .sha256 "$sums.version")" == "$up_sha" ]] || { echo "the server's sha256 differs from the sent bytes'" >&2; exit 1; }
	awk -v s="$mb MiB" -v b="$before" -v p="$peak" -v a="$after" -v t0="$start" -v t1="$end" -v mb="$mb" -v sha="${up_sha:0:12}" -v r="$r" \
		'BEGIN {printf "%-10s %-8s %9.1f MiB %9.1f MiB %9.1f MiB %10.2f %10.1f %s (peak %s)\n", s, "upload", b/1024, p/1024, a/1024, t1-t0, mb/(t1-t0), sha, r}'
	# Download.
	before="$(kib VmRSS)"; r="$(reset_peak)"; start="$(date +%s.%N)"
	down_sha="$(curl -fsS "${auth[@]}" "$base/api/content/items/$item/download" | sha256sum | cut -c1-64)"
	end="$(date +%s.%N)"; peak="$(kib VmHWM)"; after="$(kib VmRSS)"
	[[ "$down_sha" == "$up_sha" ]] || { echo "downloaded sha256 $down_sha, uploaded $up_sha" >&2; exit 1; }
	awk -v s="$mb MiB" -v b="$before" -v p="$peak" -v a="$after" -v t0="$start" -v t1="$end" -v mb="$mb" -v sha="${down_sha:0:12}" -v r="$r" \
		'BEGIN {printf "%-10s %-8s %9.1f MiB %9.1f MiB %9.1f MiB %10.2f %10.1f %s (peak %s)\n", s, "download", b/1024, p/1024, a/1024, t1-t0, mb/(t1-t0), sha, r}'
	rm -f "$sums" "$sums.version"
done
echo "server VmHWM since start $(($(kib VmHWM) / 1024)) MiB (reset per phase where clear_refs is writable); load average $(cut -d' ' -f1-3 /proc/loadavg)"
