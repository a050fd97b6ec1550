#!/usr/bin/env bash
# Runs StreamPoolBenchmark at each thread count, then draws the chart.
# Usage: benchmarks/run-pool-benchmarks.sh [OUTPUT_DIR] [THREAD_COUNTS...]
#   e.g. benchmarks/run-pool-benchmarks.sh target/jmh 1 2 16
# Needs benchmarks/target/benchmarks.jar (mvn -Pbenchmarks-jar -pl benchmarks -am -DskipTests package) and a JRE 17+ ($JAVA or java).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
jar="${JAR:-$here/target/benchmarks.jar}"
java="${JAVA:-java}"
out="${1:-$here/target/jmh}"
shift || true
threads=("$@")
if [ ${#threads[@]} -eq 0 ]; then threads=(1 2 16); fi
jmh_options="${JMH_OPTIONS:--f 1 -wi 3 -w 1s -i 5 -r 1s}"
mkdir -p "$out"
results=()
for t in "${threads[@]}"; do
	# shellcheck disable=SC2086
	"$java" -jar "$jar" StreamPoolBenchmark $jmh_options -t "$t" -rf json -rff "$out/pool-t$t.json" \
		| tee "$out/pool-t$t.txt"
	results+=("$out/pool-t$t.json")
done
"$java" -cp "$jar" dev.offload.benchmarks.chart.PoolChart "$out/pool-overhead.png" "${results[@]}"
echo "Results in $out; chart $out/pool-overhead.png"
