#!/usr/bin/env bash
# Where a flight recording's threads spent their samples, for a machine without a profiler (the GPU machine has no
# perf): counts jdk.ExecutionSample (threads running Java) and jdk.NativeMethodSample (threads in native code, such
# as the CUDA driver) by thread group (a thread's name without its trailing -number), by label and by top frame.
# A label is the first NAME=REGEX given whose regular expression matches a frame of the sample's stack, "-" if none.
#
# Usage: jfr-threads.sh RECORDING.jfr [NAME=REGEX ...] (jfr from the JDK that made the recording on the PATH, or
# JFR=/path/to/jfr: on the GPU machine, the packed runtime's, ${TMPDIR:-/tmp}/offload-runtime/jre/bin/jfr). Record
# with sampling every millisecond: a copy of the JDK's lib/jfr/profile.jfc whose jdk.ExecutionSample and
# jdk.NativeMethodSample periods are set to "1 ms", carried beside the pack; e.g. for gpu-run.sh's async part
# ASYNC_JAVA_OPTS="-XX:StartFlightRecording=filename=/tmp/async.jfr,settings=$PWD/fine.jfc", then, for its joiners:
#   jfr-threads.sh /tmp/async.jfr 'async=CompletionFuture|closeAsync' 'close=OffloadSession\.close\(' \
#     'session=dev\.offload\.(OffloadSession|Device|StreamPool)' 'raw=lambda\$threadsRound'
set -euo pipefail
recording=$1
shift
jfr=${JFR:-jfr}
labels=$(printf '%s\n' "$@")
for event in jdk.ExecutionSample jdk.NativeMethodSample; do
	"$jfr" print --stack-depth 64 --events "$event" "$recording" | awk -v event="$event" -v labels="$labels" '
		BEGIN { n = split(labels, specs, "\n"); for (i = 1; i <= n; i++) { eq = index(specs[i], "=");
			names[i] = substr(specs[i], 1, eq - 1); regexes[i] = substr(specs[i], eq + 1) } }
		function emit() { group = thread; sub(/-[0-9]+$/, "-N", group); label = "-";
			for (i = 1; i <= n; i++) if (hit[i]) { label = names[i]; break }
			byGroup[group "\t" label]++; byTop[group "\t" label "\t" top]++ }
		/^jdk\./ { if (thread != "") emit(); thread = ""; top = ""; inStack = 0; delete hit; next }
		/sampledThread = / { match($0, /"[^"]*"/); thread = substr($0, RSTART + 1, RLENGTH - 2); next }
		/stackTrace = \[/ { inStack = 1; next }
		inStack && /^[ ]*\]/ { inStack = 0; next }
		inStack { frame = $0; sub(/^ */, "", frame); sub(/ *line:.*/, "", frame); if (top == "") top = frame;
			for (i = 1; i <= n; i++) if (frame ~ regexes[i]) hit[i] = 1; next }
		END { if (thread != "") emit();
			print "## " event ": samples by thread group and label"; print "";
			for (k in byGroup) print byGroup[k] "\t" k | "sort -rn"; close("sort -rn");
			print ""; print "## " event ": by top frame (the 40 most)"; print "";
			for (k in byTop) print byTop[k] "\t" k | "sort -rn | head -40"; close("sort -rn | head -40"); print "" }'
done
