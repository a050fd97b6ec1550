#!/usr/bin/env bash
# Runs on the GPU machine, from the folder scripts/gpu/pack.sh filled: the CUDA backend's tests (JUnit console
# launcher; the GPU-tagged ones run there, the rest too) and then the session benchmark, in the same call.
# Then the hazard and pool benchmarks and the sample app. Logs go to $OUT (the device tool's output folder), or to
# ./gpu-out: environment.txt, tests.log, benchmark.log, hazard.md, pool.txt, sample-app.log (the device tool brings
# back at most 8 files; the JUnit XML reports stay in /tmp/offload-junit). Exit status: that of the tests, or of the benchmark if the tests passed.
# The tests run twice: in JCuda's default mode (tests.log), then with -Doffload.test.jcuda-exceptions=true, which
# makes every CUDA test switch JCudaDriver.setExceptionsEnabled(true) on once its registry started
# (tests-exceptions.log). GPU_RUN_PARTS=tests stops after the tests (the benchmarks and the app are not needed then).
# BENCH_ARGS passes options to the benchmark, e.g. BENCH_ARGS="--iterations 20000 --rounds 3". TESTS_TIMEOUT and
# BENCH_TIMEOUT (seconds, default 300 and 150) bound each part, so that a hung test still leaves time for the rest.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
runtime="${TMPDIR:-/tmp}/offload-runtime"
mkdir -p "$runtime"
tar xJf "$here/jre.txz" -C "$runtime"
java=$runtime/jre/bin/java

{
	date -u '+%Y-%m-%dT%H:%M:%SZ'
	uname -a
	nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
	nvidia-smi
	"$java" -version
	echo "CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-unset}"
} >"$out/environment.txt" 2>&1
head -3 "$out/environment.txt"

console=$(ls "$here"/lib/junit-platform-console-standalone-*.jar)
classpath="$here/classes/core:$here/classes/core-test:$here/classes/benchmarks"
for jar in "$here"/lib/*.jar; do
	[ "$jar" = "$console" ] || classpath="$classpath:$jar"
done

# Everything on the JVM's class path (not the launcher's -cp), so that the failure test's child JVM gets it too.
run_tests() {
	local log=$1
	shift
	timeout "${TESTS_TIMEOUT:-300}" "$java" "$@" -cp "$console:$classpath" org.junit.platform.console.ConsoleLauncher \
		execute --disable-banner --disable-ansi-colors --details=tree --select-package dev.offload.backend.cuda \
		--reports-dir "/tmp/offload-junit/$log" 2>&1 | tee "$out/$log.log"
	return "${PIPESTATUS[0]}"
}
run_tests tests
tests=$?
run_tests tests-exceptions -Doffload.test.jcuda-exceptions=true
tests_exceptions=$?
[ "$tests" -eq 0 ] && tests=$tests_exceptions
if [ "${GPU_RUN_PARTS:-all}" = tests ]; then
	echo "gpu-run: tests exit $tests (exceptions mode: $tests_exceptions)"
	exit "$tests"
fi

# shellcheck disable=SC2086
timeout "${BENCH_TIMEOUT:-150}" "$java" -cp "$classpath" dev.offload.benchmarks.cuda.SessionBenchmark ${BENCH_ARGS:-} 2>&1 | tee "$out/benchmark.log"
bench=${PIPESTATUS[0]}

# The stream-sharing hazard on the GPU (all strategies in one run), then the pool's overhead with JMH on this
# machine's 16 cores (the free backend isolates the pool).
benchcp="$here/classes/benchmarks:$here/bench-lib/*:$classpath"
timeout "${HAZARD_TIMEOUT:-150}" "$java" -cp "$benchcp" dev.offload.benchmarks.HazardBenchmark --backend cuda \
	${HAZARD_ARGS:-} 2>&1 | tee "$out/hazard.md"
hazard=${PIPESTATUS[0]}
for t in ${POOL_THREADS:-1 16}; do
	timeout "${POOL_TIMEOUT:-90}" "$java" -cp "$benchcp" org.openjdk.jmh.Main StreamPoolBenchmark -p backend=free \
		-f 1 -wi 2 -w 1s -i 3 -r 1s -t "$t" 2>&1 | grep -E '^(# Run complete|Benchmark|StreamPool)' | sed "s/^/t=$t /"
done | tee "$out/pool.txt"

# 10,000 sessions in flight with closeAsync, completed by the device's one completion thread.
timeout "${ASYNC_TIMEOUT:-60}" "$java" -cp "$benchcp" dev.offload.benchmarks.cuda.AsyncThroughputBenchmark 10000 5 \
	2>&1 | tee -a "$out/benchmark.log"

# The sample app on the CUDA backend, checked over HTTP (prices, Monte Carlo, a burst, then a device failure).
smoke=0
if [ -d "$here/app" ]; then
	appcp="$here/app/classes:$here/app/test-classes:$here/app/lib/*:$here/lib/jcuda-12.0.0.jar"
	appcp="$appcp:$(ls "$here"/lib/jcuda-natives-*.jar):$(ls "$here"/bench-lib/commons-math3-*.jar)"
	timeout "${SMOKE_TIMEOUT:-180}" "$java" -cp "$appcp" dev.offload.sample.GpuSmokeCheck cuda 2>&1 | tee "$out/sample-app.log"
	smoke=${PIPESTATUS[0]}
fi

# JVM start to ready of a small web app, with and without the starter, on the host backend.
if [ -d "$here/app" ]; then
	startcp="$here/app/test-classes:$here/app/lib/*:$here/lib/jcuda-12.0.0.jar:$(ls "$here"/lib/jcuda-natives-*.jar)"
	timeout "${STARTUP_TIMEOUT:-120}" "$java" -Doffload.backend=host -cp "$startcp" \
		dev.offload.benchmarks.startup.StartupBenchmark "${STARTUP_RUNS:-9}" 2>&1 | tee -a "$out/benchmark.log"
fi

echo "gpu-run: tests exit $tests, benchmark exit $bench, hazard exit $hazard, sample app exit $smoke"
[ "$tests" -ne 0 ] && exit "$tests"
[ "$bench" -ne 0 ] && exit "$bench"
exit "$smoke"
