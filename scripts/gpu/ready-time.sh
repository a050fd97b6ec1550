#!/usr/bin/env bash
# Process start to readiness UP: starts a command RUNS times, polls the readiness group (every 20 ms, over bash's
# /dev/tcp, so that neither curl nor python is needed) until it answers 200 with "UP", stops the process (SIGTERM, then
# waits for it), and prints each time and the median, with the CPU time the process had used by then (user + system,
# from /proc: what a machine busy with other work inflates less than the wall time).
#   scripts/gpu/ready-time.sh RUNS PORT -- java -jar sample-app/target/offload-sample-app.jar --offload.backend=host
# PORT is the actuator's (the sample app's management.server.port, 8081); READY_PATH overrides
# /actuator/health/readiness, READY_LIMIT_S the longest wait for one start (default 120). Exit 1 if a start never got
# ready.
set -uo pipefail
runs=${1:?RUNS}
port=${2:?PORT}
shift 2
[ "${1:-}" = "--" ] && shift
path=${READY_PATH:-/actuator/health/readiness}
limit_ms=$((${READY_LIMIT_S:-120} * 1000))

ready() {
	local answer
	{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
	printf 'GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n' "$path" >&3
	answer=$(timeout 2 cat <&3)
	exec 3<&-
	[[ "$answer" == "HTTP/1.1 200"* && "$answer" == *'"UP"'* ]]
}

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

cpu_ms() {
	local fields
	read -ra fields <"/proc/$1/stat" || return
	# utime and stime, fields 14 and 15, in clock ticks.
	echo $(((fields[13] + fields[14]) * 1000 / $(getconf CLK_TCK)))
}

times=()
cpus=()
for ((run = 1; run <= runs; run++)); do
	start=$(now_ms)
	"$@" >"${TMPDIR:-/tmp}/ready-time-$run.log" 2>&1 &
	pid=$!
	elapsed=-1
	while kill -0 "$pid" 2>/dev/null; do
		if ready; then
			elapsed=$(($(now_ms) - start))
			cpu=$(cpu_ms "$pid")
			break
		fi
		if (($(now_ms) - start > limit_ms)); then
			break
		fi
		sleep 0.02
	done
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if ((elapsed < 0)); then
		echo "run $run: not ready (see ${TMPDIR:-/tmp}/ready-time-$run.log)"
		exit 1
	fi
	echo "run $run: ready in $elapsed ms, $cpu ms of CPU"
	times+=("$elapsed")
	cpus+=("$cpu")
done
mapfile -t sorted < <(printf '%s\n' "${times[@]}" | sort -n)
mapfile -t sorted_cpu < <(printf '%s\n' "${cpus[@]}" | sort -n)
echo "median of $runs: ${sorted[$((runs / 2))]} ms (min ${sorted[0]}, max ${sorted[$((runs - 1))]}); CPU ${sorted_cpu[$((runs / 2))]} ms"
