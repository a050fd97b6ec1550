/**
 * Auto-configuration of Offload's health contributor.
 */
@NullMarked
package dev.offload.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
