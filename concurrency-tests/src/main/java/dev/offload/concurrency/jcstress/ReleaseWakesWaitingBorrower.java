package dev.offload.concurrency.jcstress;

import java.time.Duration;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

import dev.offload.Device;
import dev.offload.OffloadSession;
import dev.offload.concurrency.CountingBackend;

/**
 * A borrower of a full pool (one stream, lent) races with the release of that stream: it
 * gets the stream, at once or after waiting, because the release signals whenever someone
 * waits (the borrower counts itself waiting before it looks at the stream; the release
 * looks at the count after its state write). A missed signal leaves the borrower waiting
 * out its timeout, ten seconds, far longer than the release takes.
 */
@JCStressTest
@Outcome(id = "0", expect = Expect.ACCEPTABLE, desc = "The borrower got the released stream")
@Outcome(id = "-1", expect = Expect.FORBIDDEN, desc = "The borrower missed the release's signal and timed out")
@Outcome(expect = Expect.FORBIDDEN, desc = "A stream that does not exist was lent")
@State
public class ReleaseWakesWaitingBorrower {

	private final Device device = Pools.device(new CountingBackend(), 1, Duration.ofSeconds(10));

	private final OffloadSession held = Pools.borrow(this.device);

	/**
	 * Borrows from the full pool.
	 * @param result r1: the stream's id, -1 on timeout
	 */
	@Actor
	public void borrower(I_Result result) {
		result.r1 = Pools.borrowId(this.device);
	}

	/**
	 * Releases the one stream.
	 */
	@Actor
	public void releaser() {
		this.held.close();
	}

}
