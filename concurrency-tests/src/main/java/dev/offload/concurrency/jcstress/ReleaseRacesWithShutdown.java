package dev.offload.concurrency.jcstress;

import java.time.Duration;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.concurrency.CountingBackend;

/**
 * A release races with the registry's close, which shuts the pool down without waiting:
 * whoever comes second destroys the stream, exactly once, and never while it is lent (the
 * session synchronizes its stream before releasing it, which the counting backend reports
 * as a misuse if the stream was destroyed).
 */
@JCStressTest
@Outcome(id = "1, 1, 0", expect = Expect.ACCEPTABLE,
		desc = "The stream was back before shutdown looked; destroyed " + "once")
@Outcome(id = "0, 1, 0", expect = Expect.ACCEPTABLE,
		desc = "Shutdown found the stream lent and left it; the " + "release destroyed it")
@Outcome(id = { "0, 0, 0", "1, 0, 0" }, expect = Expect.FORBIDDEN,
		desc = "The stream came back after shutdown and " + "was never destroyed (leaked)")
@Outcome(expect = Expect.FORBIDDEN, desc = "The stream was destroyed twice, or destroyed while lent")
@State
public class ReleaseRacesWithShutdown {

	private final CountingBackend backend = new CountingBackend();

	private final DeviceRegistry registry = Pools.registry(this.backend, 0, Pools.NO_WAIT);

	private final Device device = this.registry.device(0);

	private final OffloadSession held = Pools.borrow(this.device);

	/**
	 * Releases the one stream.
	 */
	@Actor
	public void releaser() {
		this.held.close();
	}

	/**
	 * Closes the registry, which shuts the pool down, without waiting.
	 * @param result r1: 1 if no stream was lent when it returned
	 */
	@Actor
	public void shutdown(III_Result result) {
		result.r1 = this.registry.close(Duration.ZERO) ? 1 : 0;
	}

	/**
	 * Reads the backend at quiescence.
	 * @param result r2: streams destroyed; r3: streams used or destroyed after
	 * destruction
	 */
	@Arbiter
	public void destroyed(III_Result result) {
		result.r2 = this.backend.device().destroyed();
		result.r3 = this.backend.device().misuses();
	}

}
