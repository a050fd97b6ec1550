#!/usr/bin/env bash
# Loads the sample app from other processes on loopback: wrk posts light pricing batches on 32 connections while a
# loop posts heavy Monte Carlo jobs (4M paths) and reads them back. Prints wrk's latency and the status codes of both.
# The app runs with a bounded pool (max-size 8, borrow-timeout $BORROW_TIMEOUT, default 1s), so a full pool shows
# as 503s with Retry-After, never as a hang.
# Usage (from the project root, after `mvn -B -q -DskipTests -pl sample-app -am package`; needs wrk and curl):
#   scripts/load/run-load.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-30}
port=${PORT:-8097}
log=$(mktemp)
java -jar sample-app/target/offload-sample-app.jar --server.port="$port" --offload.stream-pool.initial-size=4 \
	--offload.stream-pool.max-size=8 --offload.stream-pool.borrow-timeout="${BORROW_TIMEOUT:-1s}" >"$log" 2>&1 &
app=$!
trap 'kill $app 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 120); do
	curl -sf "localhost:$port/actuator/health" >/dev/null 2>&1 && break
	sleep 1
done
heavy() {
	local end=$((SECONDS + seconds))
	while [ $SECONDS -lt $end ]; do
		curl -s -o /dev/null -w "heavy POST %{http_code}\n" -X POST "localhost:$port/api/options/monte-carlo" \
			-H 'Content-Type: application/json' \
			-d '{"spot":100,"strike":100,"maturity":1,"rate":0.03,"volatility":0.25,"paths":4194304}'
		sleep 0.3
	done
}
heavy >"$log.heavy" &
wrk -t 4 -c 32 -d "${seconds}s" --timeout 10s --latency -s scripts/load/light.lua "http://localhost:$port" | grep -E '^(light|Requests/sec)'
wait %2 2>/dev/null || true
sort "$log.heavy" | uniq -c
rm -f "$log.heavy"
curl -s "localhost:$port/actuator/streampools" | head -c 600
echo
grep -cE ' ERROR ' "$log" | sed 's/^/app ERROR log lines: /'
