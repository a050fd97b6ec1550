package dev.offload.concurrency.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import dev.offload.Device;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolStatistics;
import dev.offload.concurrency.CountingBackend;

/**
 * A release races with a borrow that finds the pool's one stream lent and grows it: the
 * borrower gets the released stream or the new one, the pool grows at most once, and
 * afterwards {@code created - destroyed == idle + inUse} with exactly one stream in use.
 */
@JCStressTest
@Outcome(id = "0, 1, 1", expect = Expect.ACCEPTABLE,
		desc = "The release came first; the borrower took the " + "released stream and nothing grew")
@Outcome(id = "1, 2, 1", expect = Expect.ACCEPTABLE, desc = "The borrower found the pool empty and grew it")
@Outcome(id = "0, 2, 1", expect = Expect.ACCEPTABLE_INTERESTING,
		desc = "The borrower grew the pool, then the " + "released stream came first in its scan")
@Outcome(id = { "0, 1, 0", "1, 2, 0", "0, 2, 0" }, expect = Expect.FORBIDDEN,
		desc = "Accounting off: created - destroyed != idle + inUse, or not exactly one stream in use")
@Outcome(expect = Expect.FORBIDDEN, desc = "A stream lent twice, a borrow refused, or a growth beyond doubling")
@State
public class ReleaseRacesWithGrow {

	private final CountingBackend backend = new CountingBackend();

	private final Device device = Pools.device(this.backend, 0);

	private final OffloadSession held = Pools.borrow(this.device);

	/**
	 * Releases the one stream.
	 */
	@Actor
	public void releaser() {
		this.held.close();
	}

	/**
	 * Borrows.
	 * @param result r1: the stream's id
	 */
	@Actor
	public void borrower(III_Result result) {
		result.r1 = Pools.borrowId(this.device);
	}

	/**
	 * Reads the pool at quiescence.
	 * @param result r2: streams created; r3: 1 if the accounting is exact with one stream
	 * in use
	 */
	@Arbiter
	public void accounting(III_Result result) {
		StreamPoolStatistics stats = this.device.streamPool().statistics();
		result.r2 = (int) stats.created();
		boolean exact = stats.created() - stats.destroyed() == stats.idle() + stats.inUse() && stats.inUse() == 1
				&& this.backend.device().created() == stats.created();
		result.r3 = exact ? 1 : 0;
	}

}
