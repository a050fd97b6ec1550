/**
 * Runs work in {@link dev.offload.OffloadSession sessions} bound to the calling thread:
 * {@link dev.offload.template.OffloadTemplate} joins the session that an
 * {@link dev.offload.template.Offload @Offload} call opened, the way Spring's
 * {@code JdbcTemplate} joins the transaction that {@code @Transactional} began.
 */
@NullMarked
package dev.offload.template;

import org.jspecify.annotations.NullMarked;
