package dev.offload.concurrency.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import dev.offload.Device;
import dev.offload.concurrency.CountingBackend;

/**
 * Two threads race for the one idle stream of a pool bounded at one: exactly one gets it
 * (the state's compare-and-set from idle to in use), the other finds the pool full.
 */
@JCStressTest
@Outcome(id = { "0, -1", "-1, 0" }, expect = Expect.ACCEPTABLE,
		desc = "One thread got the idle stream, the other " + "found the pool full")
@Outcome(id = "0, 0", expect = Expect.FORBIDDEN, desc = "The stream was lent to both threads at once")
@Outcome(id = "-1, -1", expect = Expect.FORBIDDEN, desc = "Neither thread got the idle stream")
@Outcome(expect = Expect.FORBIDDEN, desc = "A stream that does not exist was lent")
@State
public class TwoBorrowersOneIdleStream {

	private final Device device = Pools.device(new CountingBackend(), 1);

	/**
	 * Makes the one stream and gives it back.
	 */
	public TwoBorrowersOneIdleStream() {
		Pools.warm(this.device, 1);
	}

	/**
	 * Borrows.
	 * @param result r1: the stream's id, -1 if the pool was full
	 */
	@Actor
	public void first(II_Result result) {
		result.r1 = Pools.borrowId(this.device);
	}

	/**
	 * Borrows.
	 * @param result r2: the stream's id, -1 if the pool was full
	 */
	@Actor
	public void second(II_Result result) {
		result.r2 = Pools.borrowId(this.device);
	}

}
