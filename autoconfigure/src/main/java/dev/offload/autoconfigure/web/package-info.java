/**
 * Auto-configuration of Offload's web support.
 */
@NullMarked
package dev.offload.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
