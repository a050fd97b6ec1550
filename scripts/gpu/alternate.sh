#!/usr/bin/env bash
# Alternates builds of a few classes on the GPU machine, one gpu-run.sh per variant and in the order given, so that
# the host's drift over minutes falls on every variant alike. A variant is NAME=FOLDER, the folder (relative to this
# script's, i.e. inside the pack) holding the changed class files with their packages, as CLASSES_OVERLAY takes them;
# NAME= (no folder) runs the pack's own classes. Make a folder by building the change in another worktree and copying
# the class files that differ from the pack's core/target/classes, e.g. .device/change/dev/offload/OffloadSession.class.
#
# Usage (device tool, carry [".device"]):  cd .device && export OUT; ./alternate.sh base= change=change base2= change2=change
# PARTS picks gpu-run.sh's parts (default "memory-hazard async", about a minute per variant on the H200, the fluent
# and pool-waiters benchmarks cut short). Writes, per variant, the async and memory-hazard targets' lines to
# $OUT/summary.txt, and every variant's logs to $OUT/logs.tgz.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
work=${TMPDIR:-/tmp}/offload-alternate
rm -rf "$work"
for variant in "$@"; do
	name=${variant%%=*}
	overlay=${variant#*=}
	[ -n "$overlay" ] && overlay=$here/$overlay
	dir=$work/$name
	mkdir -p "$dir"
	start=$(date +%s)
	OUT=$dir CLASSES_OVERLAY="$overlay" FLUENT_TIMEOUT=1 WAITERS_TIMEOUT=1 \
		GPU_RUN_PARTS="${PARTS:-memory-hazard async}" "$here/gpu-run.sh" > "$dir/run.log" 2>&1
	{
		echo "== $name (${overlay:-classes of the pack}) $(($(date +%s) - start)) s"
		grep -h "target" "$dir/async.md" "$dir/benchmark.log" 2>/dev/null | awk '!seen[$0]++'
		grep -h "^wall close()" "$dir/async.md" 2>/dev/null
		grep -h "runAsync().join()\|Offload run()" "$dir/memory-hazard.md" 2>/dev/null
	} >> "$out/summary.txt"
done
tar czf "$out/logs.tgz" -C "$work" .
cat "$out/summary.txt"
