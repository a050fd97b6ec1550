#!/usr/bin/env bash
# Packs a small Java runtime for the GPU machine, which has no Java, no Maven and no network: jlink over the
# modules the tests, benchmarks and sample app use, compressed with xz (about 17 MB for Java 17).
#
# Usage: scripts/gpu/pack-jre.sh DEST [NAME]   writes DEST/NAME.txz (NAME defaults to jre); the archive holds one
#        folder, jre/. JDK selects the JDK to link from (default: JAVA_HOME, else the java on PATH); JRE_MODULES
#        overrides the module list. On the GPU machine: mkdir -p R && tar xJf DEST/NAME.txz -C R && R/jre/bin/java
set -euo pipefail
dest=${1:?usage: pack-jre.sh DEST [NAME]}
name=${2:-jre}
jdk=${JDK:-${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}}
# java.net.http: the sample app's HTTP checker; java.security.jgss/sasl and jdk.crypto.ec: Tomcat; jdk.jfr: recordings.
modules=${JRE_MODULES:-java.base,java.logging,java.desktop,java.management,java.naming,java.sql,java.xml,java.instrument,jdk.unsupported,jdk.management,jdk.jfr,java.net.http,java.security.jgss,java.security.sasl,jdk.crypto.ec}
mkdir -p "$dest"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The default CDS archive too, which class data sharing of applications (-XX:ArchiveClassesAtExit) builds on, unless
# JRE_CDS=no (4.7 MB less compressed; startup measurements need it).
cds=--generate-cds-archive
[ "${JRE_CDS:-yes}" = no ] && cds=""
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files $cds --output "$tmp/jre"
XZ_OPT=-9 tar cJf "$dest/$name.txz" -C "$tmp" jre
ls -la "$dest/$name.txz"
