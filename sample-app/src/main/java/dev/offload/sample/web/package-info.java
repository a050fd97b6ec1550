/**
 * The sample's HTTP API: pricing endpoints, Monte Carlo jobs, portfolio scenario risk,
 * and errors as problem details.
 */
package dev.offload.sample.web;
