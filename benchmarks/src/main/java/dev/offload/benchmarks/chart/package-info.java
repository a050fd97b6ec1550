/**
 * Charts of the benchmarks' results, drawn with XChart from JMH's JSON output.
 */
package dev.offload.benchmarks.chart;
