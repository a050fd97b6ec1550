package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.BackendStream;
import dev.offload.test.fault.FaultInjectingBackend.Operation;
import dev.offload.test.fault.FaultInjectingBackend;
import dev.offload.test.kernel.TestKernels;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A property of the pool, checked over random scenarios: whatever sequence of borrows,
 * launches, copies, synchronizes, closes, async closes and injected faults several
 * threads run, no stream is lent to two sessions at once, no stream is lent with pending
 * or failed work, {@code created - destroyed == idle + inUse}, every session ends and
 * every future completes.
 * <p>
 * Each scenario is generated from its seed; a failure names the seed and the scenario, so
 * it can be replayed. (jqwik was the suggestion; its current release asks AI
 * agents not to use it, so the generator is written here, with JUnit's parameterized
 * tests.)
 */
class PoolUnderFaultsPropertyTests {

	enum Action {

		BORROW, LAUNCH, FAILING_LAUNCH, COPY, SYNCHRONIZE, CLOSE, CLOSE_ASYNC

	}

	record Scenario(long seed, int threads, int initialSize, int maxSize, double launchFaultRate, double syncFaultRate,
			double queryFaultRate, double createFaultRate, boolean sticky, List<List<Action>> programs) {

		static Scenario generate(long seed) {
			SplittableRandom random = new SplittableRandom(seed);
			int threads = 2 + random.nextInt(5);
			int initialSize = 1 + random.nextInt(4);
			int maxSize = random.nextBoolean() ? 0 : initialSize + random.nextInt(threads);
			List<List<Action>> programs = new ArrayList<>();
			Action[] actions = Action.values();
			for (int t = 0; t < threads; t++) {
				List<Action> program = new ArrayList<>();
				int length = 5 + random.nextInt(40);
				for (int i = 0; i < length; i++) {
					program.add(actions[random.nextInt(actions.length)]);
				}
				programs.add(program);
			}
			return new Scenario(seed, threads, initialSize, maxSize, random.nextDouble() * 0.2,
					random.nextDouble() * 0.1, random.nextDouble() * 0.1, random.nextDouble() * 0.1,
					random.nextInt(5) == 0, programs);
		}

	}

	static LongStream seeds() {
		return LongStream.rangeClosed(1, 40);
	}

	@ParameterizedTest(name = "seed {0}")
	@MethodSource("seeds")
	void randomWorkloadWithFaultsShouldKeepThePoolConsistent(long seed) throws Exception {
		Scenario scenario = Scenario.generate(seed);
		FaultInjectingBackend faults = FaultInjectingBackend.wrap(HostBackend.builder().workersPerDevice(3).build());
		faults.failAtRate(Operation.LAUNCH, scenario.launchFaultRate(), seed)
			.failAtRate(Operation.SYNCHRONIZE, scenario.syncFaultRate(), seed + 1)
			.failAtRate(Operation.QUERY, scenario.queryFaultRate(), seed + 2)
			.failAtRate(Operation.CREATE_STREAM, scenario.createFaultRate(), seed + 3);
		if (scenario.sticky()) {
			faults.failStickyNth(Operation.COPY, 1 + new SplittableRandom(seed).nextInt(20));
		}
		DeviceRegistry registry = DeviceRegistry.builder(faults)
			.streamPool(new StreamPoolConfig(scenario.initialSize(), scenario.maxSize(), Duration.ofSeconds(20)))
			.build();
		Checker checker = new Checker(registry.device(0));
		ExecutorService executor = Executors.newFixedThreadPool(scenario.threads());
		try {
			List<Future<?>> runs = new ArrayList<>();
			for (List<Action> program : scenario.programs()) {
				runs.add(executor.submit(() -> checker.run(program)));
			}
			for (Future<?> run : runs) {
				run.get(60, TimeUnit.SECONDS);
			}
			checker.awaitFutures();
			StreamPoolStatistics stats = registry.device(0).streamPool().statistics();
			assertThat(checker.doubleLends).as("double lends in %s", scenario).hasValue(0);
			assertThat(checker.dirtyLends).as("streams lent with pending or failed work in %s", scenario).hasValue(0);
			assertThat(stats.inUse()).as("streams still lent in %s", scenario).isZero();
			assertThat(stats.created() - stats.destroyed()).as("accounting in %s", scenario)
				.isEqualTo(stats.idle() + stats.inUse());
			assertThat(registry.device(0).activeSessions()).as("sessions not ended in %s", scenario).isZero();
		}
		finally {
			executor.shutdownNow();
			registry.close(Duration.ofSeconds(5));
		}
	}

	/**
	 * Runs one thread's program and records every broken invariant it sees.
	 */
	private static final class Checker {

		private final Device device;

		private final Kernel noop;

		private final Kernel fail;

		private final Map<Integer, Long> holders = new ConcurrentHashMap<>();

		private final List<CompletableFuture<Void>> futures = java.util.Collections.synchronizedList(new ArrayList<>());

		final AtomicInteger doubleLends = new AtomicInteger();

		final AtomicInteger dirtyLends = new AtomicInteger();

		Checker(Device device) {
			this.device = device;
			this.noop = device.loadModule(TestKernels.MODULE).kernel("noop");
			this.fail = device.loadModule(TestKernels.MODULE).kernel("fail");
		}

		void run(List<Action> program) {
			OffloadSession session = null;
			for (Action action : program) {
				try {
					if (session == null) {
						session = this.device.openSession();
					}
					session = step(session, action);
				}
				catch (OffloadException | IllegalStateException ex) {
					// Injected faults, failed devices and timeouts are expected; the
					// invariants are checked anyway.
					if (session != null && (session.isClosed() || session.failure() != null)) {
						session = end(session);
					}
				}
			}
			if (session != null) {
				end(session);
			}
		}

		private OffloadSession step(OffloadSession session, Action action) {
			switch (action) {
				case BORROW -> borrow(session);
				case LAUNCH -> {
					borrow(session);
					session.launch(this.noop, LaunchConfig.of(1, 1));
				}
				case FAILING_LAUNCH -> {
					borrow(session);
					session.launch(this.fail, LaunchConfig.of(1, 1), 0);
				}
				case COPY -> {
					borrow(session);
					session.copy(session.hostBuffer(new float[] { 1, 2 }), session.allocate(8));
				}
				case SYNCHRONIZE -> session.synchronize();
				case CLOSE -> {
					return end(session);
				}
				case CLOSE_ASYNC -> {
					release(session);
					this.futures.add(session.closeAsync());
					return null;
				}
			}
			return session;
		}

		private void borrow(OffloadSession session) {
			if (session.hasStream()) {
				return;
			}
			int streamId = session.streamId();
			if (this.holders.putIfAbsent(streamId, session.id()) != null) {
				this.doubleLends.incrementAndGet();
			}
			BackendStream stream = session.unwrap(BackendStream.class);
			try {
				if (!stream.query()) {
					this.dirtyLends.incrementAndGet();
				}
			}
			catch (OffloadException ex) {
				if (this.device.isHealthy()) {
					this.dirtyLends.incrementAndGet();
				}
			}
		}

		private void release(OffloadSession session) {
			if (session.hasStream()) {
				this.holders.remove(session.streamId(), session.id());
			}
		}

		private OffloadSession end(OffloadSession session) {
			release(session);
			try {
				session.close();
			}
			catch (OffloadException ex) {
				// The session's failure, reported at close.
			}
			return null;
		}

		void awaitFutures() throws Exception {
			for (CompletableFuture<Void> future : List.copyOf(this.futures)) {
				future.handle((ok, error) -> null).get(60, TimeUnit.SECONDS);
			}
		}

	}

}
