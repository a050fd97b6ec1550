#!/usr/bin/env bash
# Packs everything the GPU run needs into one folder that travels to the GPU machine (which has no Java, no Maven
# and no network): a jlinked JRE, the compiled core (main and test), offload-test (main and test: the behaviour
# contract and its CUDA runs) and benchmark classes with the test kernels, the
# runtime jars (JCuda and its Linux natives, JNA for NVRTC, AssertJ, Awaitility, SLF4J), the JUnit console launcher, and
# gpu-run.sh, the script that runs there.
#
# Usage (from the project's root):   scripts/gpu/pack.sh [DEST]      (DEST defaults to .device, git-ignored)
# PACK_PARTS (default "app bench", 73 MiB: over the device tool's limit) adds the sample app (for the app and startup parts of gpu-run.sh) and the
# benchmarks' runtime (bench, which the memory and memory-soak parts need too); PACK_PARTS=tests packs only what the tests need. PACK_PARTS=vt packs what the vt part
# needs and the Java 25 runtime only (JDK25 must name a JDK 25; a jre.txz left by an earlier pack is removed), so
# that both runtimes do not have to travel. PACK_PARTS=app packs the sample app without the test runtime and with a
# JRE without its CDS archive (about 60 MiB with the checkout), for GPU_RUN_PARTS=app alone. PACK_PARTS=ffm packs what
# the ffm part needs (the tests' runtime, the FFM binding's classes and tests) and the Java 25 runtime only (JDK25 must
# name a JDK 22+). PACK_PARTS=profiler adds async-profiler's Linux agent (0.6 MiB), for the raw-ffm part's CPU profile.
# The device tool carries at most 64 MiB: pack only what the run needs.
# Then, with the device tool:         run  command="bash .device/gpu-run.sh"  carry=[".device"]
# The tool sends the checkout the session started in; when packing from another worktree, pass that checkout's
# .device folder as DEST (e.g. the main checkout's .device).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$(realpath -m "${1:-$root/.device}")
console_version=${JUNIT_CONSOLE_VERSION:-6.0.3}
cd "$root"

parts=" ${PACK_PARTS:-app bench} "
# PACK_PARTS=app alone packs no test runtime (test classes, AssertJ, the JUnit console launcher): the sample app
# and its checker need only core's runtime, and without the rest the pack fits the device tool's 64 MiB.
tests=1
[[ "$parts" == " app " ]] && tests=""
mvn -B -q -pl core,offload-test,benchmarks,backend-ffm -am -DskipTests package
mkdir -p "$dest"
rm -rf "$dest/classes" "$dest/lib"
mkdir -p "$dest/classes" "$dest/lib"
cp -r core/target/classes "$dest/classes/core"
cp -r offload-test/target/classes "$dest/classes/offload-test"
cp -r benchmarks/target/classes "$dest/classes/benchmarks"
# The FFM binding (compiled for Java 22; empty where the build had no JDK 22+), for the ffm part on the Java 25 runtime.
if [ -d backend-ffm/target/classes/dev ]; then
	cp -r backend-ffm/target/classes "$dest/classes/backend-ffm"
	[ -d backend-ffm/target/test-classes ] && cp -r backend-ffm/target/test-classes "$dest/classes/backend-ffm-test"
elif [[ "$parts" == *" ffm "* ]]; then
	echo "PACK_PARTS=ffm: backend-ffm was not compiled (no JDK 22+ at java25.home); see the build's notice" >&2
	exit 2
fi
if [ -n "$tests" ]; then
	cp -r core/target/test-classes "$dest/classes/core-test"
	cp -r offload-test/target/test-classes "$dest/classes/offload-test-test"
	# The test runtime of core, from Maven's dependency list, less JUnit (the console launcher brings its own) and
	# Byte Buddy (9 MB; AssertJ needs it only for soft-assertion proxies, which these tests do not use).
	mvn -B -q -pl core dependency:copy-dependencies -DincludeScope=test -DoutputDirectory="$dest/lib" \
		-DexcludeGroupIds=org.junit.jupiter,org.junit.platform,org.opentest4j,org.apiguardian,net.bytebuddy,com.tngtech.archunit
	mvn -B -q dependency:copy -Dartifact="org.junit.platform:junit-platform-console-standalone:$console_version" \
		-DoutputDirectory="$dest/lib"
else
	# JCuda for the app's class path (its own lib/ has everything else), and SLF4J for the benchmarks (the small
	# part runs from this pack too).
	mvn -B -q -pl core dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$dest/lib" \
		-DincludeGroupIds=org.jcuda,org.slf4j
fi
if [[ "$parts" == *" app "* ]]; then
# The sample app, run there on the CUDA backend by dev.offload.sample.GpuSmokeCheck: its classes and its runtime
# dependencies as Maven lists them, less JCuda (lib/ holds it) and the test tooling the reactor's other modules bring
# (the device tool carries 64 MiB at most); its checker needs Commons Math (bench-lib/ has it).
rm -rf "$dest/app"
mkdir -p "$dest/app/lib"
mvn -B -q -pl sample-app -am -DskipTests package dependency:copy-dependencies -DincludeScope=runtime \
	-DoutputDirectory="$dest/app/lib" \
	-DexcludeArtifactIds=jcuda,jcuda-natives,byte-buddy,byte-buddy-agent,mockito-core,mockito-junit-jupiter,assertj-core,spring-test,spring-boot-test,spring-boot-test-autoconfigure,awaitility,hamcrest,spring-boot-configuration-processor,junit-jupiter-api,junit-platform-commons,opentest4j,apiguardian-api
cp -r sample-app/target/classes "$dest/app/classes"
cp -r sample-app/target/test-classes "$dest/app/test-classes"

fi
if [[ "$parts" == *" profiler "* ]]; then
	# async-profiler's agent for Linux on x86-64, from its Maven artifact (the jar carries the native libraries).
	rm -rf "$dest/profiler"
	mkdir -p "$dest/profiler"
	mvn -B -q dependency:copy -Dartifact="tools.profiler:async-profiler:${ASYNC_PROFILER_VERSION:-4.2}" \
		-DoutputDirectory="$dest/profiler"
	(cd "$dest/profiler" && unzip -q -j -o async-profiler-*.jar linux-x64/libasyncProfiler.so && rm async-profiler-*.jar)
fi
if [[ "$parts" == *" bench "* ]] || [[ "$parts" == *" app "* ]]; then
# The benchmarks' own runtime (JMH, its dependencies, the Commons Pool2 baseline) for the hazard and pool benchmarks;
# their classes are in classes/benchmarks, JCuda in lib/.
rm -rf "$dest/bench-lib"
mvn -B -q -pl benchmarks -am -DskipTests package dependency:copy-dependencies -DincludeScope=runtime \
	-DoutputDirectory="$dest/bench-lib" -DincludeArtifactIds=jmh-core,jopt-simple,commons-math3,commons-pool2
fi

# A Java 17 runtime (the default JDK), and a Java 25 one when JDK25 names a JDK (virtual-thread benchmarks).
if [[ "$parts" == " vt " ]] || [[ "$parts" == *" ffm "* ]]; then
	[ -n "${JDK25:-}" ] || { echo "PACK_PARTS=${parts// /} needs JDK25=<a JDK 25>" >&2; exit 2; }
	rm -f "$dest/jre.txz"
else
	# The sample app alone travels without the CDS archive (the startup part, which needs it, packs with bench).
	cds=yes
	[ -n "$tests" ] || cds=no
	[ -f "$dest/jre.txz" ] || JRE_CDS=$cds scripts/gpu/pack-jre.sh "$dest" jre
fi
if [ -n "${JDK25:-}" ] && [ ! -f "$dest/jre25.txz" ]; then
	JDK="$JDK25" scripts/gpu/pack-jre.sh "$dest" jre25
fi
# Modules from CUDA C source call NVRTC through JNA: without its jar they cannot compile there.
[ -n "$(ls "$dest"/lib/jna-[0-9]*.jar "$dest"/app/lib/jna-[0-9]*.jar 2>/dev/null || true)" ] \
	|| { echo "JNA is missing from $dest/lib" >&2; exit 1; }
cp scripts/gpu/gpu-run.sh "$dest/gpu-run.sh"
cp benchmarks/src/main/c/light_request_floor.c "$dest/light_request_floor.c"
cp scripts/gpu/jfr-threads.sh "$dest/jfr-threads.sh"
cp scripts/gpu/lock-summary.sh "$dest/lock-summary.sh"
cp scripts/gpu/profile-summary.sh "$dest/profile-summary.sh"
cp scripts/gpu/alternate.sh "$dest/alternate.sh"
cp scripts/gpu/ready-time.sh "$dest/ready-time.sh"
cp benchmarks/src/main/c/blas_floor.c "$dest/blas_floor.c"
cp benchmarks/src/main/c/blas_bitwise.c "$dest/blas_bitwise.c"
cp scripts/load/overload.py "$dest/overload.py"
du -sh "$dest"
ls -la "$dest" "$dest/lib"
