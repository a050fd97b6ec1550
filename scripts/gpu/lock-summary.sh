#!/usr/bin/env bash
# Where a flight recording's threads waited for each other: sums jdk.ThreadPark and jdk.JavaMonitorEnter events by
# event, thread group (a thread's name without its trailing -number) and the first dev.offload frame of the stack,
# with their count and total duration, the 30 longest first. Record with every wait, however short:
#   java -XX:StartFlightRecording=filename=/tmp/run.jfr,settings=profile,locking-threshold=0ms ...
# (gpu-run.sh's raw-ffm part does, with RAW_FFM_LOCKS=yes).
#
# Usage: lock-summary.sh RECORDING.jfr (jfr from the JDK that made the recording on the PATH, or JFR=/path/to/jfr)
set -euo pipefail
"${JFR:-jfr}" print --stack-depth 24 --events jdk.ThreadPark,jdk.JavaMonitorEnter "$1" | awk '
	function nanos(v, u) { return (u == "ns") ? v : (u == "us") ? v * 1e3 : (u == "ms") ? v * 1e6 : (u == "s") ? v * 1e9 : v }
	/^jdk\.(ThreadPark|JavaMonitorEnter)/ { ev = $1; key = ""; d = 0; th = ""; inStack = 0; next }
	/^  duration = / { d = nanos($3 + 0, $4); next }
	/^  eventThread = / { match($0, /"[^"]*"/); th = substr($0, RSTART + 1, RLENGTH - 2); sub(/-[0-9]+$/, "-N", th); next }
	/stackTrace = \[/ { inStack = 1; next }
	inStack && key == "" && /dev\.offload/ { key = $0; sub(/^ */, "", key); sub(/ *line:.*/, "", key); next }
	/^}/ { if (ev != "") { k = ev "\t" th "\t" ((key == "") ? "-" : key); n[k]++; t[k] += d }; ev = ""; inStack = 0 }
	END { for (k in n) printf "%8d\t%10.1f ms\t%s\n", n[k], t[k] / 1e6, k }' | sort -t$'\t' -k2 -rn | head -30
