package dev.offload.concurrency.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.OffloadSession;
import dev.offload.concurrency.CountingBackend.CountingStream;
import dev.offload.concurrency.CountingBackend;

/**
 * Statistics read while a stream is discarded: the pool lent its stream twice before the
 * race, so the borrow counter must read 2 whatever the discard does meanwhile (the
 * discarded stream's borrows move to the pool's count of retired borrows; a read between
 * the two places must not miss them). The destroyed counter reads 0 or 1.
 */
@JCStressTest
@Outcome(id = { "2, 0", "2, 1" }, expect = Expect.ACCEPTABLE,
		desc = "Borrows counted exactly, before or after the " + "discard")
@Outcome(id = { "0, 0", "0, 1" }, expect = Expect.FORBIDDEN,
		desc = "The discarded stream's borrows vanished from " + "the count")
@Outcome(id = { "4, 0", "4, 1" }, expect = Expect.FORBIDDEN,
		desc = "The discarded stream's borrows were counted " + "twice")
@Outcome(expect = Expect.FORBIDDEN, desc = "Another count")
@State
public class StatisticsRaceWithDiscard {

	private final Device device = Pools.device(new CountingBackend(), 0);

	private final OffloadSession held;

	/**
	 * Lends the one stream once and gives it back, then lends it again to the session the
	 * discarder closes, with its work made to fail.
	 */
	public StatisticsRaceWithDiscard() {
		Pools.warm(this.device, 1);
		this.held = Pools.borrow(this.device);
		this.held.unwrap(CountingStream.class).failWork();
	}

	/**
	 * Closes the session whose work failed, so that the pool discards its stream.
	 */
	@Actor
	public void discarder() {
		try {
			this.held.close();
		}
		catch (BackendException expected) {
			// The failure is the point: the stream is discarded.
		}
	}

	/**
	 * Reads the statistics.
	 * @param result r1: borrows; r2: streams destroyed
	 */
	@Actor
	public void reader(JJ_Result result) {
		var stats = this.device.streamPool().statistics();
		result.r1 = stats.borrows();
		result.r2 = stats.destroyed();
	}

}
