/**
 * AssertJ assertions for applications that test their Offload code on the host backend.
 */
package dev.offload.test;
