#!/usr/bin/env bash
# Prints the home of the newest installed JDK whose feature version is at least $1 (default 22), or nothing.
# The build runs it (root pom, the second-jdk step) to find the JDK that compiles and tests backend-ffm and runs the
# java21-tagged tests; -Djava25.home=... overrides it. Further arguments are homes to consider first (the build passes
# the JDK Maven runs on). It looks where JDKs are installed: JAVA_HOME and JAVA<n>_HOME variables, /usr/lib/jvm
# (Debian, Ubuntu, Fedora), /usr/java, /opt/java, /opt/jdk*, SDKMAN, ~/.jdks (IntelliJ), macOS's
# /Library/Java/JavaVirtualMachines. A home counts when it has bin/javac and a release file naming its version.
set -u
min=${1:-22}
shift || true
best="" best_version=0
consider() {
	local home=$1 version feature
	[ -x "$home/bin/javac" ] && [ -r "$home/release" ] || return 0
	version=$(sed -n 's/^JAVA_VERSION="\([^"]*\)"$/\1/p' "$home/release")
	feature=${version%%[.+-]*}
	[ "$feature" = 1 ] && feature=$(echo "$version" | cut -d. -f2)
	case $feature in '' | *[!0-9]*) return 0 ;; esac
	if [ "$feature" -ge "$min" ] && [ "$feature" -gt "$best_version" ]; then
		best=$home best_version=$feature
	fi
}
for home in "$@"; do
	consider "${home%/jre}"
done
for name in $(compgen -e); do
	case $name in JAVA_HOME | JAVA[0-9]*_HOME) consider "${!name}" ;; esac
done
for home in /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* "$HOME"/.jdks/* \
	/Library/Java/JavaVirtualMachines/*/Contents/Home; do
	[ -L "$home" ] && continue
	consider "$home"
done
[ -z "$best" ] || printf '%s\n' "$best"
