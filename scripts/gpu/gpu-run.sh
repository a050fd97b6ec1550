#!/usr/bin/env bash
# Runs on the GPU machine, from the folder scripts/gpu/pack.sh filled. GPU_RUN_PARTS picks what runs (default
# "tests bench app startup"), each part bounded by its own timeout so that a hung part leaves time for the rest:
#   tests    the tests of the CUDA backend and of the kernel compilation (JUnit console launcher), twice: in JCuda's
#            default mode (tests.log), then with -Doffload.test.jcuda-exceptions=true, which makes every CUDA test switch
#            JCudaDriver.setExceptionsEnabled(true) on once its registry started (tests-exceptions.log); among them
#            NvrtcTests and CudaSourceGpuTests compile CUDA C with the machine's libnvrtc.so.13 (through JNA), run it,
#            print the warm-cache module load time and a bad kernel's file:line
#   source   not in the default: the CUDA backend's tests once more with -Doffload.test.kernels-from-source=true, so
#            that every test kernel (empty, saxpy, spin, oob) is compiled from its .cu by NVRTC instead of loaded from
#            the committed PTX (tests-source.log); the child-JVM scenarios keep the PTX
#   bench    the session benchmark (benchmark.log; BENCH_ARGS), the stream-sharing hazard with every strategy
#            (hazard.md; HAZARD_ARGS), the pool's overhead with JMH (pool.txt), 10,000 closeAsync sessions
#   app      the sample app on CUDA checked over HTTP (sample-app.log), then, where python3 exists, the overload
#            flood against it (flood.md; FLOOD_ARGS)
#   startup  JVM start to ready with and without the starter (startup.log; STARTUP_ARGS, e.g. "9 --cds")
#   ready    not in the default: the sample app on the CUDA backend from process start to readiness UP
#            (/actuator/health/readiness), its kernels precompiled first for this GPU's architecture by
#            KernelPrecompiler (as the app's -Pprecompile-kernels build does), READY_RUNS starts (default 5) through
#            ready-time.sh (ready.md)
#   small    not in the default: small work at GPU scale, SmallWorkBenchmark (small-work.md; SMALL_ARGS): 1,000
#            concurrent callers of one-option price requests, unbatched against batched against a batcher whose
#            batches do no device work (the callers' ceiling), in bursts (--rounds) and sustained (--seconds, after
#            --ramp-ms), with throughput ratio, p99 and every price compared bit for bit; then a 16-launch flow
#            replayed as a CUDA graph against eager launches. SMALL_CALLERS (default "platform") runs it once per
#            caller model: platform threads (small-work.md), virtual threads on the Java 25 runtime (jre25.txz;
#            small-work-virtual.md); e.g. SMALL_CALLERS="platform virtual" SMALL_ARGS="--seconds 5"
#   connections  not in the default: the stream-sharing hazard with a heavy kernel always running (HEAVY_ARGS,
#            default "--heavy-always 1 --heavy-every 0 --strategies offload,bare-pool,round-robin-256,light-only"; HAZARD_ARGS
#            too), once per value of CUDA_DEVICE_MAX_CONNECTIONS in CONNECTIONS (default "unset 8 32"; hazard-connections.md)
#   async    not in the default: the session benchmark (benchmark.log; BENCH_ARGS), AsyncThroughputBenchmark: sessions
#            in flight with closeAsync against a raw query poller, the cold round against the warm ones, and T threads of S
#            sessions each with closeAsync().join() against raw launch + cuStreamSynchronize (async.md; ASYNC_ARGS "N rounds
#            T S", default "8192 5 64 1024"; ASYNC_JAVA_OPTS adds options to its JVM, e.g. a flight recording that
#            jfr-threads.sh, packed beside this script, sums up by thread: see its header),
#            the fluent call against hand-written JCuda (fluent.md; FLUENT_ARGS), thousands of borrowers waiting on a
#            full bounded pool (pool-waiters.txt; WAITERS_ARGS); ASYNC_BACKEND=ffm runs Offload's side of the session
#            and async benchmarks on the FFM binding (the Java 25 runtime), their raw loops still JCuda's
#   tenants  not in the default: a 100:1 flood between two tenants on a full bounded pool of the CUDA backend,
#            TenantFloodBenchmark (tenants.md; TENANTS_ARGS, default "--backend cuda"): the quiet tenant's p99 against
#            alone, Jain's index of equal-weight tenants, throughput against FIFO
#   fluent   not in the default: only the fluent call of the async part (fluent.md; FLUENT_ARGS, FLUENT_JAVA_OPTS adds
#            options to its JVM, e.g. a flight recording: -XX:StartFlightRecording=filename=$OUT/fluent.jfr,settings=profile)
#   breakdown  not in the default: where one thread's fluent call spends its time, FluentCallBreakdown (breakdown.md;
#            BREAKDOWN_ARGS, e.g. "--sizes 1,1024 --blocks 40"; FLUENT_JAVA_OPTS adds options to its JVM too): the
#            hand-written call with Offload's device or page-locked buffers in place of its own, the session API and
#            the fluent call, in turns on one thread
#   multi    not in the default: what needs several GPUs, MultiGpuTests (multi-tests.log; it skips itself, with the
#            reason, on fewer than two devices) and the hazard benchmark on one GPU against MULTI_DEVICES GPUs
#            (default 2; hazard-multi.md, with the throughput and light p99 targets; HAZARD_ARGS too)
#   memory   not in the default: the memory hazard (memory-hazard.md: 16 threads, sizes 4 KiB-32 MiB, a 5 ms kernel
#            always running, against a per-thread preallocated floor; p50/p99/throughput ratios), the flood with 10%
#            of sessions wanting 30% of the budget, budget on and off, then without it at fixed concurrencies
#            (memory-flood.md), and the memory path with JMH
#            at 1 and 16 threads (memory-jmh.txt); MEMORY_ARGS adds options (e.g. "--seconds 20")
#   memory-hazard  not in the default: only the memory hazard of the memory part (memory-hazard.md)
#   memory-jmh   not in the default: only the memory path with JMH of the memory part (memory-jmh.txt: a cache hit,
#            a session's budget admission, and its two parts apart, a session's opening and closing and the
#            budget's acquire and release; about 40 s per thread count)
#   memory-soak  not in the default: MEMORY_SOAK_SECONDS (default 540) of varying sizes, counting driver allocations
#            and frees and device-synchronizing calls on request and completion threads after warm-up
#            (memory-soak.md); run it as a call of its own (a 600 s soak needs the whole per-call limit)
#   blas     not in the default: cuBLAS through Offload, BlasBenchmark (blas.md; BLAS_ARGS "iterations threads",
#            default "20000 16", BLAS_ROUNDS rounds of the threads' run, default 1; -Doffload.blas.library=... through
#            BLAS_JAVA_OPTS): 8192x8192 sgemm (default and TF32), a 64x64 sgemm round trip's p50/p99 on one thread,
#            16 threads' round trips per second (a session's buffers per round trip, then buffers kept per thread),
#            handles created and workspace allocations; then, where cc exists, blas_floor.c, the same from C (dlopen
#            of libcuda.so.1 and libcublas.so.13, BLAS_FLOOR_LIBRARY for another path), appended to blas.md
#   blas-load  not in the default: BlasMixedLoad, a steady mixed BLAS load (gemm/gemv/axpy/dot, sizes 16..1024, 16
#            threads, a session per request) once per binding in BLAS_LOAD_BINDINGS (default "cuda ffm"; ffm on the Java
#            25 runtime), BLAS_LOAD_SECONDS (default 300) after a 20 s warm-up: the handles created and workspace
#            allocations after warm-up, target 0 and 0, exit 1 if missed (blas-load.md; BLAS_LOAD_ARGS adds options).
#            Two 5-minute runs exceed the device tool's 10-minute call: run one binding per call, or set
#            BLAS_LOAD_BACKGROUND=yes to run the bindings at once, beside the other parts of the call
#            (blas-load-<binding>.md; without the fault watch, since those parts may fault on the GPU)
#   blas-check not in the default: bit for bit, blas_bitwise.c (cuBLAS from C) against BlasBitwise (Offload) on each
#            binding in BLAS_CHECK_BINDINGS (default "cuda ffm"): sgemm/dgemm/sgemv/dgemv on the same seeded inputs, in
#            BLAS_CHECK_MATH (DEFAULT, PEDANTIC or TF32) with the same 4 MiB workspace; equal or unequal per case
#            (blas-check.md), exit 1 on a difference; needs cc there
#   vt       not in the default, on the Java 25 runtime jre25.txz (pack with JDK25=<a JDK 25> PACK_PARTS=vt
#            scripts/gpu/pack.sh): CudaVirtualThreadGpuTests (vt-tests.log), then 10,000 requests on virtual threads
#            against a 64-thread platform pool, once per stream pool bound in
#            VT_MAX_STREAMS (default "256 0", 0 = unbounded; virtual-threads.md, with the targets; VT_ARGS adds
#            options, VT_BACKEND=host runs it without a GPU, VT_JAVA_OPTS adds JVM options to the benchmark's JVM,
#            e.g. a flight recording: -XX:StartFlightRecording=filename=$OUT/vt.jfr,settings=profile)
#   floor    not in the default: the C floor of a light request against the fluent call on the FFM and JCuda
#            bindings, alternated (floor.md; FLOOR_ROUNDS, FLOOR_ARGS); needs cc there and a Java 22+ runtime for FFM
#   raw-ffm  not in the default, packed with PACK_PARTS="ffm bench": RawFfmLightRequests (the FFM binding's tests),
#            light requests on RAW_FFM_THREADS threads (16) through raw FFM downcalls against the fluent call on the
#            FFM backend (the raw request with cuMemcpyAsync as the binding, and with C's typed copies),
#            alternated round by round in one JVM, then the C floor on as many threads; FLOOR_ROUNDS
#            times (raw-ffm.md); RAW_FFM_MODES names the modes beside raw FFM (e.g. "fluent,session and buffers
#            kept"; all of them when unset), RAW_FFM_ROUNDS the rounds per JVM (5), RAW_FFM_JAVA_OPTS options of its
#            JVM (e.g. a flight recording: -XX:StartFlightRecording=filename=$OUT/raw-ffm.jfr,settings=profile). With
#            RAW_FFM_LOCKS=yes the last round records parks and monitor waits of any length
#            and lock-summary.sh sums them by the first Offload frame; with RAW_FFM_PROFILE=yes (packed with
#            PACK_PARTS="ffm bench profiler") async-profiler samples the last round's CPU time on every thread
#            (raw-ffm.collapsed) and profile-summary.sh splits it by mode and frame (raw-ffm-profile.md)
#   ffm      not in the default, on the Java 25 runtime jre25.txz (pack with JDK25=<a JDK 25> PACK_PARTS=ffm
#            scripts/gpu/pack.sh): every gpu-tagged test of the CUDA backend, the kernel compilation, the behaviour
#            contract and the FFM binding's own, on the FFM binding (-Doffload.test.cuda-binding=ffm: the CUDA suite
#            creates its backend through offload-backend-ffm; NVRTC through FFM too), in JCuda's default mode
#            (ffm-tests.log) and with JCuda's exceptions on (ffm-tests-exceptions.log: the interop calls of the
#            FFM tests are JCuda's); the tests that check JCuda's own handles skip themselves with the reason
# CLASSES_OVERLAY=<a folder of class files> puts them ahead of the pack's on the tests' and benchmarks' class path: an
# A/B of a few changed classes (copied from another build's core/target/classes, packages kept) without a second pack,
# which would not fit the device tool's carry limit beside the first.
# Logs go to $OUT (the device tool's output folder) or ./gpu-out, with environment.txt; the JUnit XML reports stay in
# $TMPDIR/offload-junit (/tmp by default). Exit status: the first failing part's (a JMH piece that printed no results
# counts as failed).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
runtime="${TMPDIR:-/tmp}/offload-runtime"
mkdir -p "$runtime"
# The Java 17 runtime runs every part but vt, which runs on the Java 25 one; a pack for vt alone has only the latter,
# which then runs every part.
[ -f "$here/jre.txz" ] && tar xJf "$here/jre.txz" -C "$runtime"
java=$runtime/jre/bin/java
java25=$runtime/25/jre/bin/java
if [ -f "$here/jre25.txz" ]; then
	mkdir -p "$runtime/25"
	tar xJf "$here/jre25.txz" -C "$runtime/25"
fi
# A pack with the Java 25 runtime only runs the other parts on it too (environment.txt names the runtimes).
[ -x "$java" ] || java=$java25

{
	date -u '+%Y-%m-%dT%H:%M:%SZ'
	uname -a
	nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
	nvidia-smi
	for each in "$java" "$java25"; do
		[ -x "$each" ] && "$each" -version
	done
	echo "CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-unset}"
	echo "CLASSES_OVERLAY=${CLASSES_OVERLAY:-none}"
	[ -n "${CLASSES_OVERLAY:-}" ] && find "$CLASSES_OVERLAY" -name '*.class' | sed "s|^$CLASSES_OVERLAY/|  |"
} >"$out/environment.txt" 2>&1
head -3 "$out/environment.txt"

# A pack of the sample app alone (PACK_PARTS=app) has no test runtime: no console launcher.
console=$(ls "$here"/lib/junit-platform-console-standalone-*.jar 2>/dev/null || true)
classpath="$here/classes/core:$here/classes/core-test:$here/classes/offload-test:$here/classes/offload-test-test"
[ -n "${CLASSES_OVERLAY:-}" ] && classpath="$CLASSES_OVERLAY:$classpath"
classpath="$classpath:$here/classes/benchmarks"
for jar in "$here"/lib/*.jar; do
	[ "$jar" = "$console" ] || classpath="$classpath:$jar"
done

# Everything on the JVM's class path (not the launcher's -cp), so that the failure test's child JVM gets it too.
run_tests() {
	local log=$1
	shift
	timeout "${TESTS_TIMEOUT:-300}" "$java" "$@" -cp "$console:$classpath" org.junit.platform.console.ConsoleLauncher \
		execute --disable-banner --disable-ansi-colors --details=tree --select-package dev.offload.backend.cuda \
		--select-package dev.offload.compile \
		--reports-dir "${TMPDIR:-/tmp}/offload-junit/$log" 2>&1 | tee "$out/$log.log"
	return "${PIPESTATUS[0]}"
}
parts=" ${GPU_RUN_PARTS:-tests bench app startup} "
want() { [[ "$parts" == *" $1 "* ]]; }
status=0
record() { [ "$status" -eq 0 ] && status=$1; echo "gpu-run: $2 exit $1"; }

# A JMH run's table ends up in a file through a filter: a benchmark that failed leaves the table empty, so each
# thread count must have left a row of BENCHMARK ("jmh_rows FILE BENCHMARK LABEL"), or the part counts as failed.
jmh_rows() {
	local missing
	missing=$(grep -E '^t=[0-9]+ # Run complete' "$1" | cut -d' ' -f1 | while read -r t; do
		grep -qE "^$t $2\." "$1" || echo "$t"
	done | paste -sd" ")
	if [ -n "$missing" ] || ! grep -qE "^t=[0-9]+ $2\." "$1"; then
		echo "gpu-run: $3 printed no $2 results (${missing:-no run}); run it by hand to see why" | tee -a "$1"
		record 1 "$3"
	fi
}

benchcp="$here/classes/benchmarks:$here/bench-lib/*:$classpath"

# The Java command of a CUDA binding: JCuda's ("cuda") on the default runtime, FFM's on the Java 25 one.
binding_java() {
	if [ "$1" = ffm ]; then
		[ -x "$java25" ] || return 1
		echo "$java25 --enable-native-access=ALL-UNNAMED"
	else
		echo "$java"
	fi
}

# BLAS_LOAD_BACKGROUND=yes starts blas-load's bindings at once, in the background, each into blas-load-<binding>.md,
# while the other parts run; the script waits for them at its end. Only the counts are read from that run, not its
# speed, and the other parts (tests, say) share the GPU with it: NVML reports a fault of any process on the GPU,
# so the load runs without the fault watch.
background=()
if want blas-load && [ "${BLAS_LOAD_BACKGROUND:-}" = yes ]; then
	for binding in ${BLAS_LOAD_BINDINGS:-cuda ffm}; do
		if ! run=$(binding_java "$binding"); then
			echo "no jre25.txz: the ffm binding needs it (pack with JDK25=<a JDK 25>)" | tee "$out/blas-load-ffm.md"
			record 2 "blas-load (ffm, background)"
			continue
		fi
		# shellcheck disable=SC2086
		timeout "${BLAS_LOAD_TIMEOUT:-420}" $run ${BLAS_JAVA_OPTS:-} -cp "$here/classes/backend-ffm:$benchcp" \
			dev.offload.benchmarks.BlasMixedLoad --backend "$binding" --seconds "${BLAS_LOAD_SECONDS:-300}" \
			--gpu-fault-watch off ${BLAS_LOAD_ARGS:-} >"$out/blas-load-$binding.md" 2>&1 &
		background+=("$!:$binding")
	done
fi

if want tests; then
	run_tests tests
	record $? tests
	run_tests tests-exceptions -Doffload.test.jcuda-exceptions=true
	record $? tests-exceptions
fi

# The CUDA suite on the FFM binding, on Java 25: the same gpu-tagged tests, the backend made by offload-backend-ffm.
if want ffm; then
	if [ -x "$java25" ] && [ -d "$here/classes/backend-ffm" ]; then
		ffmcp="$here/classes/backend-ffm:$here/classes/backend-ffm-test:$classpath"
		for mode in default exceptions; do
			log=ffm-tests
			[ "$mode" = exceptions ] && log=ffm-tests-exceptions
			timeout "${TESTS_TIMEOUT:-300}" "$java25" --enable-native-access=ALL-UNNAMED \
				-Doffload.test.cuda-binding=ffm -Doffload.test.jcuda-exceptions="$([ "$mode" = exceptions ] && echo true || echo false)" \
				-Doffload.test.classpath="$ffmcp" -cp "$console:$ffmcp" org.junit.platform.console.ConsoleLauncher execute \
				--disable-banner --disable-ansi-colors --details=tree --include-tag gpu \
				--select-package dev.offload.backend.cuda --select-package dev.offload.compile \
				--select-package dev.offload.backend.ffm --reports-dir "${TMPDIR:-/tmp}/offload-junit/$log" 2>&1 \
				| tee "$out/$log.log"
			record "${PIPESTATUS[0]}" "$log"
		done
	else
		echo "no jre25.txz or no FFM classes: pack with JDK25=<a JDK 25> PACK_PARTS=ffm scripts/gpu/pack.sh" \
			| tee "$out/ffm-tests.log"
		record 2 ffm-tests
	fi
fi

if want source; then
	run_tests tests-source -Doffload.test.kernels-from-source=true
	record $? tests-source
fi

if want multi; then
	timeout "${TESTS_TIMEOUT:-300}" "$java" -cp "$console:$classpath" org.junit.platform.console.ConsoleLauncher \
		execute --disable-banner --disable-ansi-colors --details=tree \
		--select-class dev.offload.backend.cuda.MultiGpuTests --reports-dir "${TMPDIR:-/tmp}/offload-junit/multi-tests" 2>&1 \
		| tee "$out/multi-tests.log"
	record "${PIPESTATUS[0]}" multi-tests
	# shellcheck disable=SC2086
	timeout "${HAZARD_TIMEOUT:-300}" "$java" -cp "$benchcp" dev.offload.benchmarks.HazardBenchmark --backend cuda \
		--devices "${MULTI_DEVICES:-2}" ${HAZARD_ARGS:-} 2>&1 | tee "$out/hazard-multi.md"
	record "${PIPESTATUS[0]}" hazard-multi
fi

if want bench; then
	# shellcheck disable=SC2086
	timeout "${BENCH_TIMEOUT:-150}" "$java" -cp "$classpath" dev.offload.benchmarks.cuda.SessionBenchmark ${BENCH_ARGS:-} 2>&1 | tee "$out/benchmark.log"
	record "${PIPESTATUS[0]}" session-benchmark

	# The stream-sharing hazard on the GPU (all strategies in one run), then the pool's overhead with JMH on this
	# machine's 16 cores (the free backend isolates the pool).
	timeout "${HAZARD_TIMEOUT:-150}" "$java" -cp "$benchcp" dev.offload.benchmarks.HazardBenchmark --backend cuda \
		${HAZARD_ARGS:-} 2>&1 | tee "$out/hazard.md"
	record "${PIPESTATUS[0]}" hazard
	for t in ${POOL_THREADS:-1 16}; do
		timeout "${POOL_TIMEOUT:-90}" "$java" -cp "$benchcp" org.openjdk.jmh.Main StreamPoolBenchmark -p backend=free \
			-f 1 -wi 2 -w 1s -i 3 -r 1s -t "$t" 2>&1 | grep -E '^(# Run complete|Benchmark|StreamPool)' | sed "s/^/t=$t /"
	done | tee "$out/pool.txt"
	jmh_rows "$out/pool.txt" StreamPoolBenchmark pool-jmh

	# 10,000 sessions in flight with closeAsync, completed by the device's one completion thread.
	# shellcheck disable=SC2086
	timeout "${ASYNC_TIMEOUT:-120}" "$java" -cp "$benchcp" dev.offload.benchmarks.cuda.AsyncThroughputBenchmark \
		${ASYNC_ARGS:-10000 5 64} 2>&1 | tee -a "$out/benchmark.log"
fi

# Asynchronous completion, the fluent call and a full pool's waiters, against raw JCuda where there is one.
if want async; then
	# ASYNC_BACKEND=ffm runs Offload's side of both on the FFM binding (Java 25 runtime); the raw loops stay JCuda's.
	asyncbackend=${ASYNC_BACKEND:-cuda}
	if run=$(binding_java "$asyncbackend"); then
		# shellcheck disable=SC2086
		timeout "${BENCH_TIMEOUT:-150}" $run -cp "$here/classes/backend-ffm:$benchcp" \
			dev.offload.benchmarks.cuda.SessionBenchmark --backend "$asyncbackend" ${BENCH_ARGS:-} 2>&1 \
			| tee "$out/benchmark.log"
		record "${PIPESTATUS[0]}" session-benchmark
		# shellcheck disable=SC2086
		timeout "${ASYNC_TIMEOUT:-150}" $run ${ASYNC_JAVA_OPTS:-} -cp "$here/classes/backend-ffm:$benchcp" \
			dev.offload.benchmarks.cuda.AsyncThroughputBenchmark ${ASYNC_ARGS:-8192 5 64 1024} --backend "$asyncbackend" \
			2>&1 | tee "$out/async.md"
		record "${PIPESTATUS[0]}" async-throughput
	else
		echo "no jre25.txz: ASYNC_BACKEND=ffm needs it (pack with JDK25=<a JDK 25>)" | tee "$out/async.md"
		record 2 async-throughput
	fi
fi
if want async || want fluent; then
	# shellcheck disable=SC2086
	timeout "${FLUENT_TIMEOUT:-200}" "$java" ${FLUENT_JAVA_OPTS:-} -cp "$benchcp" dev.offload.benchmarks.FluentCallBenchmark \
		--backend cuda ${FLUENT_ARGS:-} 2>&1 | tee "$out/fluent.md"
	record "${PIPESTATUS[0]}" fluent-call
fi
# The driver's floor of a light request (4 B in, the 4-parameter scale kernel, 4 B out, synchronize): the C program
# light_request_floor.c (built here with cc) and the fluent call on each binding, alternated FLOOR_ROUNDS times
# (default 2) so that the host's drift falls on every side alike (floor.md; FLOOR_ARGS for the fluent benchmark,
# default "--sizes 1 --threads 1,16 --rounds 3").
# light_request_floor CALLS THREADS...: builds the C floor unless built from this source already, then runs it on
# the pack's scale kernel.
light_request_floor() {
	local floor_bin=${TMPDIR:-/tmp}/light_request_floor
	[ "$floor_bin" -nt "$here/light_request_floor.c" ] \
		|| cc -O2 -o "$floor_bin" "$here/light_request_floor.c" -ldl -lpthread || return
	timeout 120 "$floor_bin" "$here/classes/benchmarks/dev/offload/benchmarks/cuda/scale.ptx" "$@"
}
if want floor; then
	ffmcp="$here/classes/backend-ffm:$benchcp"
	for round in $(seq "${FLOOR_ROUNDS:-2}"); do
		{
			echo "## round $round: C"
			light_request_floor 20000 1 16
			for binding in ffm cuda; do
				echo "## round $round: fluent call, binding $binding"
				# shellcheck disable=SC2086
				timeout "${FLUENT_TIMEOUT:-200}" "$java" --enable-native-access=ALL-UNNAMED ${FLUENT_JAVA_OPTS:-} \
					-cp "$ffmcp" dev.offload.benchmarks.FluentCallBenchmark --backend "$binding" \
					${FLOOR_ARGS:---sizes 1 --threads 1,16 --rounds 3}
			done
		} 2>&1 | tee -a "$out/floor.md"
	done
	record "${PIPESTATUS[0]}" floor
fi
if want raw-ffm; then
	if [ -x "$java25" ] && [ -d "$here/classes/backend-ffm-test" ]; then
		rawcp="$here/classes/backend-ffm:$here/classes/backend-ffm-test:$benchcp"
		rounds=${FLOOR_ROUNDS:-2}
		for round in $(seq "$rounds"); do
			recording=()
			if [ "${RAW_FFM_LOCKS:-}" = yes ] && [ "$round" = "$rounds" ]; then
				recording=("-XX:StartFlightRecording=filename=${TMPDIR:-/tmp}/raw-ffm.jfr,settings=profile,locking-threshold=0ms")
			fi
			if [ "${RAW_FFM_PROFILE:-}" = yes ] && [ "$round" = "$rounds" ]; then
				recording+=("-agentpath:$here/profiler/libasyncProfiler.so=start,event=ctimer,interval=1ms,file=$out/raw-ffm.collapsed,collapsed")
			fi
			{
				echo "## round $round: raw FFM against the fluent call"
				modes=()
				[ -n "${RAW_FFM_MODES:-}" ] && modes=("-Dmodes=$RAW_FFM_MODES")
				# shellcheck disable=SC2086
				timeout 200 "$java25" --enable-native-access=ALL-UNNAMED ${RAW_FFM_JAVA_OPTS:-} "${recording[@]}" \
					"${modes[@]}" -cp "$rawcp" \
					dev.offload.backend.ffm.RawFfmLightRequests "${RAW_FFM_THREADS:-16}" 20000 "${RAW_FFM_ROUNDS:-5}"
				echo "## round $round: C"
				light_request_floor 20000 "${RAW_FFM_THREADS:-16}"
			} 2>&1 | tee -a "$out/raw-ffm.md"
		done
		record "${PIPESTATUS[0]}" raw-ffm
		if [ "${RAW_FFM_LOCKS:-}" = yes ]; then
			JFR="$(dirname "$java25")/jfr" "$here/lock-summary.sh" "${TMPDIR:-/tmp}/raw-ffm.jfr" 2>&1 \
				| tee -a "$out/raw-ffm.md"
		fi
		if [ "${RAW_FFM_PROFILE:-}" = yes ] && [ -f "$out/raw-ffm.collapsed" ]; then
			"$here/profile-summary.sh" "$out/raw-ffm.collapsed" 2>&1 | tee "$out/raw-ffm-profile.md"
		fi
	else
		echo "raw-ffm needs jre25.txz and the FFM binding's tests (pack with JDK25=<a JDK 25> PACK_PARTS=\"ffm bench\")" \
			| tee "$out/raw-ffm.md"
		record 2 raw-ffm
	fi
fi
if want breakdown; then
	# shellcheck disable=SC2086
	timeout "${BREAKDOWN_TIMEOUT:-300}" "$java" ${FLUENT_JAVA_OPTS:-} -cp "$benchcp" \
		dev.offload.benchmarks.FluentCallBreakdown ${BREAKDOWN_ARGS:-} 2>&1 | tee "$out/breakdown.md"
	record "${PIPESTATUS[0]}" fluent-breakdown
fi
if want tenants; then
	# shellcheck disable=SC2086
	timeout "${TENANTS_TIMEOUT:-180}" "$java" -cp "$benchcp" dev.offload.benchmarks.TenantFloodBenchmark \
		${TENANTS_ARGS:---backend cuda} 2>&1 | tee "$out/tenants.md"
	record "${PIPESTATUS[0]}" tenants
fi
if want async; then
	# shellcheck disable=SC2086
	timeout "${WAITERS_TIMEOUT:-90}" "$java" -cp "$benchcp" dev.offload.benchmarks.jmh.PoolWaitersBenchmark \
		${WAITERS_ARGS:-4000 16 20 20 3} 2>&1 | tee "$out/pool-waiters.txt"
	record "${PIPESTATUS[0]}" pool-waiters
fi

# A heavy kernel always running while light tasks are timed, under each CUDA_DEVICE_MAX_CONNECTIONS (the number of
# hardware queues the driver maps streams onto; 8 by default, so the 17th stream shares a queue with the 1st).
if want connections; then
	: >"$out/hazard-connections.md"
	for connections in ${CONNECTIONS:-unset 8 32}; do
		if [ "$connections" = unset ]; then
			setting=(env -u CUDA_DEVICE_MAX_CONNECTIONS)
		else
			setting=(env "CUDA_DEVICE_MAX_CONNECTIONS=$connections")
		fi
		# shellcheck disable=SC2086
		timeout "${HAZARD_TIMEOUT:-150}" "${setting[@]}" "$java" -cp "$benchcp" dev.offload.benchmarks.HazardBenchmark \
			--backend cuda ${HEAVY_ARGS:---heavy-always 1 --heavy-every 0 --strategies offload,bare-pool,round-robin-256,light-only} \
			${HAZARD_ARGS:-} 2>&1 | tee -a "$out/hazard-connections.md"
		record "${PIPESTATUS[0]}" "hazard (CUDA_DEVICE_MAX_CONNECTIONS=$connections)"
		echo >>"$out/hazard-connections.md"
	done
fi

# Memory as a pooled resource: stream-ordered allocation, the budget, against a preallocated floor.
if want memory || want memory-hazard; then
	# shellcheck disable=SC2086
	timeout "${MEMORY_TIMEOUT:-150}" "$java" -cp "$benchcp" dev.offload.benchmarks.MemoryHazardBenchmark --backend cuda \
		--mode hazard ${MEMORY_ARGS:-} 2>&1 | tee "$out/memory-hazard.md"
	record "${PIPESTATUS[0]}" memory-hazard
fi
if want memory; then
	# shellcheck disable=SC2086
	timeout "${MEMORY_TIMEOUT:-240}" "$java" -cp "$benchcp" dev.offload.benchmarks.MemoryHazardBenchmark --backend cuda \
		--mode flood ${MEMORY_ARGS:-} 2>&1 | tee "$out/memory-flood.md"
	record "${PIPESTATUS[0]}" memory-flood
fi
if want memory || want memory-jmh; then
	for t in 1 16; do
		timeout "${POOL_TIMEOUT:-90}" "$java" -cp "$benchcp" org.openjdk.jmh.Main MemoryBenchmark -f 1 -wi 3 -w 1s -i 5 \
			-r 1s -t "$t" 2>&1 | grep -E '^(# Run complete|Benchmark|MemoryBenchmark)' | sed "s/^/t=$t /"
	done | tee "$out/memory-jmh.txt"
	jmh_rows "$out/memory-jmh.txt" MemoryBenchmark memory-jmh
fi
if want memory-soak; then
	soak=${MEMORY_SOAK_SECONDS:-540}
	# shellcheck disable=SC2086
	timeout "$((soak + 60))" "$java" -cp "$benchcp" dev.offload.benchmarks.MemoryHazardBenchmark --backend cuda \
		--mode soak --soak-seconds "$soak" ${MEMORY_ARGS:-} 2>&1 | tee "$out/memory-soak.md"
	record "${PIPESTATUS[0]}" memory-soak
fi

# Virtual threads (Java 21+): waits that park instead of holding a carrier in the driver, against platform threads.
if want vt; then
	if [ -x "$java25" ]; then
		# Sessions on thousands of virtual threads on the GPU: results (the context follows the carrier), no pinning.
		timeout "${TESTS_TIMEOUT:-300}" "$java25" --enable-native-access=ALL-UNNAMED -cp "$console:$classpath" \
			org.junit.platform.console.ConsoleLauncher execute --disable-banner --disable-ansi-colors --details=tree \
			--select-class dev.offload.backend.cuda.CudaVirtualThreadGpuTests --reports-dir "${TMPDIR:-/tmp}/offload-junit/vt-tests" \
			2>&1 | tee "$out/vt-tests.log"
		record "${PIPESTATUS[0]}" vt-tests
		: >"$out/virtual-threads.md"
		for bound in ${VT_MAX_STREAMS:-256 0}; do
			# shellcheck disable=SC2086
			timeout "${VT_TIMEOUT:-240}" "$java25" --enable-native-access=ALL-UNNAMED ${VT_JAVA_OPTS:-} -cp "$benchcp" \
				dev.offload.benchmarks.VirtualThreadBenchmark --backend "${VT_BACKEND:-cuda}" --max-streams "$bound" \
				${VT_ARGS:-} 2>&1 | tee -a "$out/virtual-threads.md"
			record "${PIPESTATUS[0]}" "virtual-threads (max streams $bound)"
			echo >>"$out/virtual-threads.md"
		done
	else
		echo "no jre25.txz: pack with JDK25=<a JDK 25> scripts/gpu/pack.sh" | tee "$out/virtual-threads.md"
		record 2 virtual-threads
	fi
fi

# cuBLAS through Offload, then the same from C where a compiler exists.
if want blas; then
	# shellcheck disable=SC2086
	timeout "${BLAS_TIMEOUT:-300}" "$java" ${BLAS_JAVA_OPTS:-} -cp "$here/classes/backend-ffm:$benchcp" dev.offload.benchmarks.cuda.BlasBenchmark \
		${BLAS_ARGS:-20000 16} --rounds "${BLAS_ROUNDS:-1}" 2>&1 | tee "$out/blas.md"
	record "${PIPESTATUS[0]}" blas
	if command -v cc >/dev/null 2>&1 && [ -f "$here/blas_floor.c" ]; then
		# C takes the iterations and threads of BLAS_ARGS (not its options), and skips the big sgemm with --big no.
		read -ra words <<<"${BLAS_ARGS:-20000 16}"
		[[ ${words[0]:-} =~ ^[0-9]+$ ]] || words=(20000 16)
		[[ ${words[1]:-} =~ ^[0-9]+$ ]] || words=("${words[0]}" 16)
		big=yes
		case " ${BLAS_ARGS:-} " in *" --big no "*) big=no ;; esac
		cc -O2 -o "${TMPDIR:-/tmp}/blas_floor" "$here/blas_floor.c" -ldl -lpthread \
			&& { echo; echo "From C (blas_floor.c):"; timeout "${BLAS_TIMEOUT:-300}" "${TMPDIR:-/tmp}/blas_floor" \
				"${words[0]:-20000}" "${words[1]:-16}" "${BLAS_FLOOR_LIBRARY:-libcublas.so.13}" "${BLAS_ROUNDS:-1}" \
				"$big"; } 2>&1 | tee -a "$out/blas.md"
	else
		echo "No C compiler here: blas_floor.c not run (build it elsewhere: cc -O2 -o blas_floor blas_floor.c -ldl -lpthread)" \
			| tee -a "$out/blas.md"
	fi
fi

# Runs a benchmark main class once per CUDA binding, appending to $out/<part>.md and recording each run.
# Usage: per_binding <part> <bindings> <timeout> <main class> [args after --backend <binding> ...]
per_binding() {
	local part=$1 bindings=$2 limit=$3 main=$4 binding run
	shift 4
	for binding in $bindings; do
		if ! run=$(binding_java "$binding"); then
			echo "no jre25.txz: the ffm binding needs it (pack with JDK25=<a JDK 25>)" | tee -a "$out/$part.md"
			record 2 "$part ($binding)"
			continue
		fi
		# shellcheck disable=SC2086
		timeout "$limit" $run ${BLAS_JAVA_OPTS:-} -cp "$here/classes/backend-ffm:$benchcp" "$main" \
			--backend "$binding" "$@" 2>&1 | tee -a "$out/$part.md"
		record "${PIPESTATUS[0]}" "$part ($binding)"
		echo >>"$out/$part.md"
	done
}

# cuBLAS under a steady mixed load: no handle created and no workspace allocated after warm-up, on each binding.
if want blas-load && [ "${BLAS_LOAD_BACKGROUND:-}" != yes ]; then
	: >"$out/blas-load.md"
	# shellcheck disable=SC2086
	per_binding blas-load "${BLAS_LOAD_BINDINGS:-cuda ffm}" "${BLAS_LOAD_TIMEOUT:-420}" \
		dev.offload.benchmarks.BlasMixedLoad --seconds "${BLAS_LOAD_SECONDS:-300}" ${BLAS_LOAD_ARGS:-}
fi

# Bit for bit: cuBLAS from C, then Offload on each binding, on the same inputs in the same math mode.
if want blas-check; then
	: >"$out/blas-check.md"
	dir="${TMPDIR:-/tmp}/blas-bitwise"
	rm -rf "$dir" && mkdir -p "$dir"
	math="${BLAS_CHECK_MATH:-DEFAULT}"
	case "$math" in PEDANTIC) code=2 ;; TF32) code=3 ;; *) code=0 ;; esac
	if command -v cc >/dev/null 2>&1 && [ -f "$here/blas_bitwise.c" ]; then
		cc -O2 -o "${TMPDIR:-/tmp}/blas_bitwise" "$here/blas_bitwise.c" -ldl \
			&& timeout "${BLAS_TIMEOUT:-300}" "${TMPDIR:-/tmp}/blas_bitwise" "$dir" "$code" 4194304 \
				"${BLAS_FLOOR_LIBRARY:-libcublas.so.13}" 2>&1 | tee -a "$out/blas-check.md"
		record "${PIPESTATUS[0]}" "blas-check (C)"
	else
		echo "No C compiler here: blas_bitwise.c not run, every case will say 'no C result'" | tee -a "$out/blas-check.md"
		record 2 "blas-check (C)"
	fi
	per_binding blas-check "${BLAS_CHECK_BINDINGS:-cuda ffm}" "${BLAS_TIMEOUT:-300}" \
		dev.offload.benchmarks.BlasBitwise --dir "$dir" --math "$math"
fi

# Small work: dynamic batching and captured flows (CUDA graphs), with their targets; exits 1 if a result differs.
if want small; then
	for callers in ${SMALL_CALLERS:-platform}; do
		# Virtual callers need Java 21+: the Java 25 runtime runs them.
		smalljava=("$java")
		report=small-work.md
		if [ "$callers" = virtual ]; then
			smalljava=("$java25" --enable-native-access=ALL-UNNAMED)
			report=small-work-virtual.md
		fi
		if [ -x "${smalljava[0]}" ]; then
			# shellcheck disable=SC2086
			timeout "${SMALL_TIMEOUT:-300}" "${smalljava[@]}" -cp "$benchcp" dev.offload.benchmarks.SmallWorkBenchmark \
				--backend cuda --callers "$callers" ${SMALL_ARGS:-} 2>&1 | tee "$out/$report"
			record "${PIPESTATUS[0]}" "small-work ($callers callers)"
		else
			echo "no ${smalljava[0]}: virtual callers need jre25.txz (pack with JDK25=<a JDK 25>)" | tee "$out/$report"
			record 2 "small-work ($callers callers)"
		fi
	done
fi

# The sample app on the CUDA backend, checked over HTTP (prices, Monte Carlo, a burst, then a device failure), then
# the overload flood: 64M-path Monte Carlo jobs from 32 clients while a light price request runs every 50 ms.
appcp="$here/app/classes:$here/app/lib/*:$(ls "$here"/lib/jcuda-[0-9]*.jar):$(ls "$here"/lib/jcuda-natives-*.jar 2>/dev/null)"
if want app && [ -d "$here/app" ]; then
	smokecp="$appcp:$here/app/test-classes:$(ls "$here"/bench-lib/commons-math3-*.jar)"
	timeout "${SMOKE_TIMEOUT:-180}" "$java" -cp "$smokecp" dev.offload.sample.GpuSmokeCheck cuda 2>&1 | tee "$out/sample-app.log"
	record "${PIPESTATUS[0]}" sample-app
	if command -v python3 >/dev/null && [ -f "$here/overload.py" ]; then
		# shellcheck disable=SC2086
		JAVA="$java" APP_CLASSPATH="$appcp" timeout "${FLOOD_TIMEOUT:-240}" python3 "$here/overload.py" flood \
			${FLOOD_ARGS:---seconds 60 --poll-seconds 90} -- --offload.backend=cuda 2>&1 | tee "$out/flood.md"
		record "${PIPESTATUS[0]}" flood
	else
		echo "no python3 on this machine: the flood was not run" | tee "$out/flood.md"
	fi
fi

# The sample app on the CUDA backend from process start to readiness UP, its kernels loaded from cubins that
# KernelPrecompiler wrote for this GPU beforehand (on the class path ahead of the app's classes), as a pod built with
# -Pprecompile-kernels loads them: nothing compiles at startup.
if want ready && [ -d "$here/app" ]; then
	cubins="${TMPDIR:-/tmp}/offload-ready-kernels"
	rm -rf "$cubins"
	arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
	# A pack with the Java 25 runtime alone (no JCuda in it) runs the app on the FFM binding, as a pod on Java 25 does.
	readyjava=("$java")
	[ "$java" = "$java25" ] && readyjava+=(--enable-native-access=ALL-UNNAMED)
	"${readyjava[@]}" -cp "$appcp" dev.offload.compile.KernelPrecompiler "$cubins" "$arch" \
		dev.offload.sample.pricing.OptionKernels 2>&1 | tee "$out/ready.md"
	timeout "${READY_TIMEOUT:-300}" bash "$here/ready-time.sh" "${READY_RUNS:-5}" 8081 -- "${readyjava[@]}" \
		-cp "$cubins:$appcp" dev.offload.sample.OffloadSampleApplication --offload.backend=cuda 2>&1 | tee -a "$out/ready.md"
	record "${PIPESTATUS[0]}" ready
fi

# JVM start to ready of a small web app, with and without the starter, on the host backend.
if want startup && [ -d "$here/app" ]; then
	startcp="$here/app/test-classes:$here/app/lib/*:$(ls "$here"/lib/jcuda-[0-9]*.jar):$(ls "$here"/lib/jcuda-natives-*.jar)"
	# shellcheck disable=SC2086
	timeout "${STARTUP_TIMEOUT:-300}" "$java" -Doffload.backend=host -cp "$startcp" \
		dev.offload.benchmarks.startup.StartupBenchmark ${STARTUP_ARGS:-9} 2>&1 | tee "$out/startup.log"
	record "${PIPESTATUS[0]}" startup
fi

for each in ${background[@]+"${background[@]}"}; do
	wait "${each%%:*}"
	record $? "blas-load (${each#*:}, background)"
	cat "$out/blas-load-${each#*:}.md"
done
exit "$status"
