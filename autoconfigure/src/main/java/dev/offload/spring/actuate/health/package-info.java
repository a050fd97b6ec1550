/**
 * The health indicator that reports each device's state and the backend in use.
 */
package dev.offload.spring.actuate.health;
