/**
 * Auto-configuration of the Micrometer Observation of Offload sessions.
 */
package dev.offload.autoconfigure.observation;
