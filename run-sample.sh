#!/usr/bin/env bash
# Builds and starts the sample app (option pricing + live dashboard) on http://localhost:8080.
# Without a usable GPU it runs on the host emulation; extra arguments go to the app, e.g. --server.port=9090.
set -euo pipefail
cd "$(dirname "$0")"
mvn -B -q -DskipTests -pl sample-app -am package
exec java -jar sample-app/target/offload-sample-app.jar "$@"
