/**
 * A backend decorator that injects failures and delays, for testing how applications and
 * pools cope with faults.
 */
package dev.offload.test.fault;
