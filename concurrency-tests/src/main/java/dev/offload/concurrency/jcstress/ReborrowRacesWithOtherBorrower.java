package dev.offload.concurrency.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import dev.offload.Device;
import dev.offload.OffloadSession;
import dev.offload.concurrency.CountingBackend;

/**
 * The per-thread hint: one thread borrows, releases (its hint now names that stream) and
 * borrows again, while another thread borrows once, in a pool of two idle streams bounded
 * at two. The other thread may take the hinted stream between the release and the second
 * borrow; the hint must then lose its compare-and-set and the second borrow take the
 * other stream. Both end holding different streams, and nobody finds the pool full.
 */
@JCStressTest
@Outcome(id = { "0, 0, 1", "1, 1, 0" }, expect = Expect.ACCEPTABLE,
		desc = "The hint gave the first thread its " + "stream back; the other thread had the other one")
@Outcome(id = { "0, 1, 0", "1, 0, 1" }, expect = Expect.ACCEPTABLE,
		desc = "The other thread took the released "
				+ "stream first; the hinted borrow fell back to the scan and took the other one")
@Outcome(id = { "0, 0, 0", "1, 1, 1", "0, 1, 1", "1, 0, 0" }, expect = Expect.FORBIDDEN,
		desc = "Both threads hold the same stream")
@Outcome(expect = Expect.FORBIDDEN, desc = "A borrow found the pool full although a stream was idle")
@State
public class ReborrowRacesWithOtherBorrower {

	private final Device device = Pools.device(new CountingBackend(), 2);

	/**
	 * Makes the two streams and gives them back.
	 */
	public ReborrowRacesWithOtherBorrower() {
		Pools.warm(this.device, 2);
	}

	/**
	 * Borrows, releases, borrows again.
	 * @param result r1: the first stream's id; r2: the second's; -1 for a full pool
	 */
	@Actor
	public void reborrower(III_Result result) {
		OffloadSession first = Pools.borrow(this.device);
		result.r1 = (first != null) ? first.streamId() : -1;
		if (first != null) {
			first.close();
		}
		result.r2 = Pools.borrowId(this.device);
	}

	/**
	 * Borrows once.
	 * @param result r3: the stream's id, -1 for a full pool
	 */
	@Actor
	public void other(III_Result result) {
		result.r3 = Pools.borrowId(this.device);
	}

}
