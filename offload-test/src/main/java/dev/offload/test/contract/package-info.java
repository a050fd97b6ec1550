/**
 * The behaviour every backend must show, as a suite a backend's tests extend.
 */
@NullMarked
package dev.offload.test.contract;

import org.jspecify.annotations.NullMarked;
