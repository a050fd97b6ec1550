#!/usr/bin/env bash
# Checks the published modules' binary and source compatibility (japicmp) against a baseline built from a git ref,
# before a release of that baseline exists in a repository (after the first release, -Djapicmp.baseline.version=...
# compares with the released artifacts directly; see docs/releasing.md).
#
#   scripts/check-compatibility.sh main        # the working tree against main
#
# The baseline is built from a fresh clone of the ref, with its version set to 0.0.0-baseline, and installed into a
# throwaway local repository seeded from the usual one (so that MAVEN_ARGS=-o works); the usual local repository is
# not written to. Exits with Maven's status: non-zero when an unannounced break is found (the report is in each
# module's target/japicmp/).
set -euo pipefail

ref="${1:?usage: $0 <git ref of the baseline>}"
repo="$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)"
commit="$(git -C "$repo" rev-parse --verify "$ref^{commit}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
published=":offload-dependencies,:offload-parent,:offload-core,:offload-spring-boot-autoconfigure,:offload-test,:offload-spring-boot-starter"
quick=(-DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -Dspring-javaformat.skip=true)

cp -r "${MAVEN_LOCAL_REPOSITORY:-$HOME/.m2/repository}" "$work/repository"
git clone --quiet --no-checkout "$repo" "$work/baseline"
git -C "$work/baseline" checkout --quiet "$commit"
version="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' "$work/baseline/dependencies/pom.xml" | head -1)"
find "$work/baseline" -name pom.xml -exec sed -i "s/<version>$version<\/version>/<version>0.0.0-baseline<\/version>/" {} +
echo "Building the baseline ($commit) as 0.0.0-baseline..."
(cd "$work/baseline" && mvn -B -q ${MAVEN_ARGS:-} install "${quick[@]}" -Dmaven.repo.local="$work/repository" \
	-pl "$published")

echo "Comparing the working tree with it..."
cd "$repo"
mvn -B ${MAVEN_ARGS:-} verify "${quick[@]}" -Dmaven.repo.local="$work/repository" \
	-Djapicmp.baseline.version=0.0.0-baseline -pl "$published"
