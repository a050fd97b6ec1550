/**
 * The lending room: how a pool of costly items in priority classes lends them, apart from
 * what the items are. {@link dev.offload.internal.lending.LendingPool} is its door
 * (borrow and release, statistics, shutdown),
 * {@link dev.offload.internal.lending.LendingTuning} its numeric constants;
 * package-private behind them the waiters and their hand-off ({@code Waiters}), growth
 * and replacement ({@code Growth}), a class's items ({@code ItemClass}) and the hints
 * where borrowers find its idle ones ({@code IdleHints}). Not API: anything here may
 * change in any release.
 */
@NullMarked
package dev.offload.internal.lending;

import org.jspecify.annotations.NullMarked;
