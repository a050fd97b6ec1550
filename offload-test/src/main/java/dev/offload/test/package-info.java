/**
 * AssertJ assertions for applications that test their Offload code on the host backend.
 */
@NullMarked
package dev.offload.test;

import org.jspecify.annotations.NullMarked;
