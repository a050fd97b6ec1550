#!/usr/bin/env bash
# Runs issue 8's benchmarks on the GPU machine (no Java, no Maven, no network there) from what was put in .device/:
#   here:  ../shared/device/pack-jre.sh                      # .device/jre.txz, a Java 17 runtime
#          mvn -B -q -pl benchmarks -am -DskipTests package && cp benchmarks/target/benchmarks.jar .device/
#   there: bash benchmarks/device-run.sh [hazard|pool|all]   # through the device tool, carrying .device
# Writes to $OUT (or target/device-out): machine.txt, hazard.md, hazard.csv, pool-t1/t16 .txt and .json.
set -euo pipefail
what="${1:-all}"
out="${OUT:-target/device-out}"
jar=.device/benchmarks.jar
mkdir -p "$out" /tmp/rt
[ -x /tmp/rt/jre/bin/java ] || tar xJf .device/jre.txz -C /tmp/rt
java=/tmp/rt/jre/bin/java
{
	date -u +%FT%TZ
	echo "nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo)"
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
	"$java" -version 2>&1 | head -1
} > "$out/machine.txt"
cat "$out/machine.txt"
if [ "$what" = hazard ] || [ "$what" = all ]; then
	"$java" -cp "$jar" dev.offload.benchmarks.HazardBenchmark --backend cuda --csv "$out/hazard.csv" \
		| tee "$out/hazard.md"
fi
if [ "$what" = pool ] || [ "$what" = all ]; then
	for t in 1 16; do
		"$java" -jar "$jar" StreamPoolBenchmark -f 1 -wi 3 -w 1s -i 5 -r 1s -t "$t" \
			-rf json -rff "$out/pool-t$t.json" > "$out/pool-t$t.txt"
		grep -E '^(Benchmark|StreamPool)' "$out/pool-t$t.txt"
	done
fi
