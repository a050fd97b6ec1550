#!/usr/bin/env bash
# Where the CPU went in a collapsed-stack profile of RawFfmLightRequests (async-profiler's "collapsed" output, as
# gpu-run.sh's raw-ffm part writes it with RAW_FFM_PROFILE=yes): the samples of each mode (the scaler class on the
# stack; every mode makes the same number of requests, so its samples compare as CPU time per request), then for each
# mode the frames of Offload, of the binding's downcalls and of the driver that the most samples pass through, and
# the frames the most samples end in.
#
# Usage: profile-summary.sh PROFILE.collapsed [TOP]   (TOP frames per list, 20 by default)
set -euo pipefail
awk -v top="${2:-20}" '
	{
		n = $NF; stack = substr($0, 1, length($0) - length(n) - 1)
		frames = split(stack, f, ";")
		mode = "(no request: " f[1] ")"
		for (i = 1; i <= frames; i++) {
			if (match(f[i], /RawFfmLightRequests\$[A-Za-z]+Scaler\.scale$/)) {
				mode = substr(f[i], RSTART + 20, RLENGTH - 26)
			}
		}
		total[mode] += n
		delete seen
		for (i = 1; i <= frames; i++) {
			if (!(f[i] in seen) && (f[i] ~ /dev\/offload\// || f[i] ~ /libcuda|^cu[A-Z]/) && f[i] !~ /RawFfmLightRequests/) {
				seen[f[i]] = 1
				through[mode "\t" f[i]] += n
			}
		}
		leaf[mode "\t" f[frames]] += n
	}
	END {
		print "## samples per mode"
		for (m in total) printf "%10d  %s\n", total[m], m | "sort -rn"
		close("sort -rn")
		for (m in total) {
			if (m ~ /^\(no request/) continue
			printf "\n## %s: frames passed through\n", m
			for (k in through) { split(k, p, "\t"); if (p[1] == m) printf "%10d  %s\n", through[k], p[2] | ("sort -rn | head -" top) }
			close("sort -rn | head -" top)
			printf "\n## %s: frames ended in\n", m
			for (k in leaf) { split(k, p, "\t"); if (p[1] == m) printf "%10d  %s\n", leaf[k], p[2] | ("sort -rn | head -" top) }
			close("sort -rn | head -" top)
		}
	}' "$1"
