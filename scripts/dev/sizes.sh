#!/usr/bin/env bash
# Prints the sizes docs/design.md ("Sizes") tracks: core's main source files over the line limit, the lines of the
# largest API classes, and core's count of public API and SPI types (top-level public types outside
# dev.offload.internal, as PublicSurfaceTests.PUBLIC_API_TYPES counts them from the compiled classes).
# Usage: scripts/dev/sizes.sh [limit]   (limit: lines, default 600)
set -euo pipefail
cd "$(dirname "$0")/../.."
limit=${1:-600}
main=core/src/main/java
lines() { wc -l <"$1" | tr -d ' '; }

echo "core main source files over $limit lines:"
over=0
while read -r count file; do
	if [ "$count" -gt "$limit" ]; then
		printf '  %5d  %s\n' "$count" "${file#"$main"/}"
		over=$((over + 1))
	fi
done < <(find "$main" -name '*.java' -exec wc -l {} + | grep -v ' total$' | sort -rn)
echo "  ($over files)"

echo "lines of the largest API classes:"
for file in dev/offload/OffloadSession.java dev/offload/internal/lending/LendingPool.java dev/offload/Device.java; do
	[ -f "$main/$file" ] && printf '  %5d  %s\n' "$(lines "$main/$file")" "$file"
done

public=$(find "$main" -name '*.java' ! -name package-info.java ! -path '*/dev/offload/internal/*' \
	-exec grep -lE '^public( (final|abstract|sealed|non-sealed|static|strictfp))* (class|interface|enum|record|@interface) ' {} + |
	wc -l | tr -d ' ')
echo "core public API and SPI types: $public (PublicSurfaceTests.PUBLIC_API_TYPES: $(sed -n \
	's/.*static final int PUBLIC_API_TYPES = \([0-9]*\);.*/\1/p' \
	core/src/test/java/dev/offload/architecture/PublicSurfaceTests.java))"
