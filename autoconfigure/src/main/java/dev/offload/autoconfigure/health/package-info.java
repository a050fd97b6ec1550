/**
 * Auto-configuration of Offload's health contributor.
 */
package dev.offload.autoconfigure.health;
