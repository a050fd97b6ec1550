/**
 * Tests of the operations assets under {@code ops/}: the Grafana dashboard, the
 * Prometheus alert rules and the Kubernetes manifests, checked against what the sample
 * app really exports and how it is configured.
 */
package dev.offload.sample.ops;
