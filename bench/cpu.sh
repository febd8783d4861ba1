#!/usr/bin/env bash
# Runs a command (a load run of bench/ingestload, say) and prints the CPU seconds the bench server
# and all Postgres processes used meanwhile, and the command's own, from /proc.
#
# Usage: bench/cpu.sh bench/out/ingestload -rate 3000 -clients 32 -requests 60000 -dup 0
# The server is found as the process running bench/out/server; Postgres as the processes of user
# postgres (its backends are pooled, so they live through the run).
set -euo pipefail
ticks() {
	local t=0 p
	for p in "$@"; do
		[ -r "/proc/$p/stat" ] && t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat")))
	done
	echo "$t"
}
server="$(pgrep -f bench/out/server | head -1)"
s0="$(ticks "$server")" p0="$(ticks $(pgrep -u postgres))" t0="$(date +%s.%N)"
/usr/bin/time -f "command: %U s user, %S s system" "$@"
s1="$(ticks "$server")" p1="$(ticks $(pgrep -u postgres))" t1="$(date +%s.%N)"
hz="$(getconf CLK_TCK)"
awk -v w="$(echo "$t1 - $t0" | bc)" -v s=$((s1 - s0)) -v p=$((p1 - p0)) -v hz="$hz" \
	'BEGIN { printf "wall %.1f s; server %.2f cpu-s (%.2f cores); postgres %.2f cpu-s (%.2f cores)\n", w, s/hz, s/hz/w, p/hz, p/hz/w }'
