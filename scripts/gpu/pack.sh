#!/usr/bin/env bash
# Packs everything the GPU run needs into one folder that travels to the GPU machine (which has no Java, no Maven
# and no network): a jlinked JRE, the compiled core (main and test) and benchmark classes with the test kernels, the
# runtime jars (JCuda and its Linux natives, AssertJ, Awaitility, SLF4J), the JUnit console launcher, and
# gpu-run.sh, the script that runs there.
#
# Usage (from the project's root):   scripts/gpu/pack.sh [DEST]      (DEST defaults to .device, git-ignored)
# PACK_PARTS=tests packs only what the tests need (no sample app, no benchmark runtime), for GPU_RUN_PARTS=tests.
# Then, with the device tool:         run  command="bash .device/gpu-run.sh"  carry=[".device"]
# The tool sends the checkout the session started in; when packing from another worktree, pass that checkout's
# .device folder as DEST (e.g. the main checkout's .device).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$(realpath -m "${1:-$root/.device}")
console_version=${JUNIT_CONSOLE_VERSION:-6.0.3}
pack_jre=${PACK_JRE:-$root/../shared/device/pack-jre.sh}
cd "$root"

mvn -B -q -pl core,benchmarks -am -DskipTests package
mkdir -p "$dest"
rm -rf "$dest/classes" "$dest/lib"
mkdir -p "$dest/classes" "$dest/lib"
cp -r core/target/classes "$dest/classes/core"
cp -r core/target/test-classes "$dest/classes/core-test"
cp -r benchmarks/target/classes "$dest/classes/benchmarks"

# The test runtime of core, without what the console launcher brings (JUnit) or the GPU run does not need.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mvn -B -q -pl core dependency:copy-dependencies -DincludeScope=test -DoutputDirectory="$tmp/lib"
for jar in "$tmp"/lib/*.jar; do
	case $(basename "$jar") in
		junit-*|opentest4j-*|apiguardian-*|mockito-*|byte-buddy*|objenesis-*) ;;
		*) cp "$jar" "$dest/lib/" ;;
	esac
done
mvn -B -q dependency:copy -Dartifact="org.junit.platform:junit-platform-console-standalone:$console_version" \
	-DoutputDirectory="$dest/lib"

if [ "${PACK_PARTS:-all}" != tests ]; then
# The sample app, run there on the CUDA backend by dev.offload.sample.GpuSmokeCheck: its classes and its runtime
# jars, without test tooling and without what lib/ and bench-lib/ already hold (JCuda and its natives, Commons Math).
mvn -B -q -pl sample-app -am -DskipTests package dependency:copy-dependencies -DincludeScope=test
rm -rf "$dest/app"
mkdir -p "$dest/app/lib"
cp -r sample-app/target/classes "$dest/app/classes"
cp -r sample-app/target/test-classes "$dest/app/test-classes"
for jar in sample-app/target/dependency/*.jar; do
	case $(basename "$jar") in
		selenium-*|junit-*|mockito-*|byte-buddy*|objenesis-*|opentest4j-*|apiguardian-*|htmlunit*|jcuda*|guava-*|\
		opentelemetry-*|auto-service*|failsafe-*|assertj-*|awaitility-*|hamcrest-*|jsonassert-*|json-path-*|\
		json-smart-*|accessors-smart-*|xmlunit-*|commons-exec-*|spring-test-*|spring-boot-test*|*-test-*|\
		android-json-*|micrometer-test-*|slf4j-simple-*|byte-buddy-agent-*|checker-qual-*|error_prone*|j2objc*|\
		failureaccess-*|listenablefuture-*|commons-math3-*) ;;
		*) cp "$jar" "$dest/app/lib/" ;;
	esac
done

# The benchmarks' own runtime (JMH, its dependencies, the Commons Pool2 baseline) for the hazard and pool benchmarks;
# their classes are in classes/benchmarks, JCuda in lib/.
mvn -B -q -pl benchmarks -am -DskipTests package dependency:copy-dependencies -DincludeScope=runtime \
	-DoutputDirectory="$tmp/bench-lib"
rm -rf "$dest/bench-lib"
mkdir -p "$dest/bench-lib"
for jar in "$tmp"/bench-lib/*.jar; do
	case $(basename "$jar") in
		jmh-*|jopt-simple-*|commons-math3-*|commons-pool2-*) cp "$jar" "$dest/bench-lib/" ;;
	esac
done
fi

if [ ! -f "$dest/jre.txz" ]; then
	# From outside any repository, so that the packer leaves every git exclude file alone.
	# The sample app needs java.net.http (its checker's client) and java.security.jgss (Tomcat) beside the defaults.
	(cd / && JRE_MODULES=${JRE_MODULES:-java.base,java.logging,java.desktop,java.management,java.naming,java.sql,java.xml,java.instrument,jdk.unsupported,jdk.management,jdk.jfr,java.net.http,java.security.jgss,java.security.sasl,jdk.crypto.ec} \
		"$pack_jre" "$dest")
fi
cp scripts/gpu/gpu-run.sh "$dest/gpu-run.sh"
du -sh "$dest"
ls -la "$dest" "$dest/lib"
