/**
 * A backend decorator that injects failures and delays, for testing how applications and
 * pools cope with faults.
 */
@NullMarked
package dev.offload.test.fault;

import org.jspecify.annotations.NullMarked;
