/**
 * The sample's HTTP API: pricing endpoints, Monte Carlo jobs, and errors as problem
 * details.
 */
package dev.offload.sample.web;
