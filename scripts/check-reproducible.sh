#!/usr/bin/env bash
# Builds one commit twice, in two fresh clones at different paths, at different times and in different time zones, and
# compares the published modules' jars (main, sources, Javadoc, test fixtures) byte for byte. Exits 0 when all are
# identical, 1 when one differs (it is named, with the entries that differ).
#
#   scripts/check-reproducible.sh            # HEAD
#   scripts/check-reproducible.sh v0.1.0     # any commit, tag or branch
#
# MODULES lists the module folders whose jars are compared (default: the published ones). The sample app's executable
# jar is reproducible in one time zone only (docs/releasing.md), so it is left out by default.
# Extra Maven arguments go in MAVEN_ARGS (e.g. MAVEN_ARGS=-o to build offline). Uncommitted changes are not built.
# Both builds run with umask 022: the jar plugin records each file's permissions, which follow the umask (a known limit
# of Maven's reproducible builds), so a release is built with umask 022 too (docs/releasing.md).
set -euo pipefail

modules="${MODULES:-core autoconfigure offload-test starter}"

ref="${1:-HEAD}"
repo="$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)"
commit="$(git -C "$repo" rev-parse --verify "$ref^{commit}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

build() {
	local dir="$1" tz="$2"
	git clone --quiet --no-checkout "$repo" "$dir"
	git -C "$dir" checkout --quiet "$commit"
	(cd "$dir" && umask 022 && TZ="$tz" mvn -B -q ${MAVEN_ARGS:-} package -DskipTests -Dspring-javaformat.skip=true \
		-pl "${modules// /,}" -am)
}

echo "Building $commit twice..."
build "$work/first" UTC
build "$work/second-build-elsewhere" Pacific/Chatham

status=0
count=0
while IFS= read -r jar; do
	other="$work/second-build-elsewhere/${jar#"$work/first/"}"
	count=$((count + 1))
	if [[ ! -f "$other" ]]; then
		echo "MISSING in the second build: ${jar#"$work/first/"}"
		status=1
	elif ! cmp --silent "$jar" "$other"; then
		echo "DIFFERS: ${jar#"$work/first/"}"
		diff <(unzip -lv "$jar" | awk 'NR>3 {print $1, $5, $6, $7, $8}') \
			<(unzip -lv "$other" | awk 'NR>3 {print $1, $5, $6, $7, $8}') | head -20 || true
		status=1
	fi
done < <(for module in $modules; do find "$work/first/$module/target" -maxdepth 1 -name '*.jar'; done | sort)

if [[ $count -eq 0 ]]; then
	echo "No jars were built"
	exit 1
fi
if [[ $status -eq 0 ]]; then
	echo "Reproducible: $count jars identical byte for byte"
fi
exit $status
