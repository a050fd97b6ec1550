package dev.offload.benchmarks;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.SessionOptions;
import dev.offload.StreamPoolConfig;
import dev.offload.TenantPolicy;
import dev.offload.benchmarks.support.Backends;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.benchmarks.support.LatencySummary;

/**
 * Tenants on a full bounded stream pool: a flooding tenant (many threads) against a quiet
 * one (one thread), each session holding its stream for a fixed time. It reports the
 * quiet tenant's p99 session time under the flood against its p99 alone, Jain's fairness
 * index of equal-weight tenants of unequal demand, and the total throughput under the
 * flood against the same load with no tenants (first come, first served). Runs on the
 * host backend or CUDA ({@code --backend}); the hold is a park on the host, so the pool,
 * not the processors, is the bottleneck. With every hold the same, the flood's streams
 * come back in bunches (a stream lent as another came back is given back with it), and
 * the quiet tenant, first in line, waits for the next bunch;
 * {@code --hold-spread-percent} spreads the other tenants' holds as real work varies.
 */
public final class TenantFloodBenchmark {

	static final String USAGE = """
			Usage: TenantFloodBenchmark [--backend host|cuda|ffm] [--streams S] [--flood N] [--hold-micros H]
			                            [--hold-spread-percent P] [--seconds T] [--fair-threads a,b,c,d]
			                            [--flood-max-streams M]
			  --backend       the backend, default host
			  --streams       the pool's max-size, default 32
			  --flood         threads of the flooding tenant, default 100 (the quiet tenant has 1)
			  --hold-micros   how long a session holds its stream, default 2000
			  --hold-spread-percent
			                  the other tenants' holds spread evenly over H +/- P% (the quiet tenant's stay H), so
			                  that their streams do not all come back at once; default 0 (every hold exactly H)
			  --seconds       seconds of each phase (after a warm-up of a third of it), default 6
			  --fair-threads  threads of each equal-weight tenant for the fairness index, default 48,32,24,16
			  --flood-max-streams
			                  the flooding tenant's limit (offload.tenants.shares.<tenant>.max-streams), so that
			                  streams stay free for the others; default 0 (no limit)
			""";

	private final Options options;

	private final PrintStream out;

	TenantFloodBenchmark(Options options, PrintStream out) {
		this.options = options;
		this.out = out;
	}

	/**
	 * Runs the phases and prints a Markdown table and the three targets.
	 * @param args the options; {@code --help} prints them
	 */
	public static void main(String[] args) {
		Options options = CommandLine.parse(args, USAGE, Options::from);
		new TenantFloodBenchmark(options, System.out).run();
	}

	Results run() {
		try (DeviceRegistry registry = DeviceRegistry.builder(Backends.create(this.options.backend, 0))
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(this.options.streams)
				.withMaxSize(this.options.streams)
				.withBorrowTimeout(Duration.ofMinutes(5)))
			.watchGpuFaults(false)
			.tenants(
					(this.options.floodMaxStreams > 0)
							? TenantPolicy.DEFAULTS.withTenant("flood",
									new TenantPolicy.TenantShare(1, this.options.floodMaxStreams, 0))
							: TenantPolicy.DEFAULTS)
			.build()) {
			Phase alone = phase(registry, List.of(new Group("quiet", 1, true)));
			Phase fair = phase(registry,
					List.of(new Group("flood", this.options.flood, true), new Group("quiet", 1, true)));
			Phase fifo = phase(registry,
					List.of(new Group("flood", this.options.flood, false), new Group("quiet", 1, false)));
			List<Group> unequal = new ArrayList<>();
			for (int i = 0; i < this.options.fairThreads.length; i++) {
				unequal.add(new Group("t" + i, this.options.fairThreads[i], true));
			}
			Phase fairShares = phase(registry, unequal);
			Phase fifoShares = phase(registry,
					unequal.stream().map((g) -> new Group(g.tenant, g.threads, false)).toList());
			Results results = new Results(alone, fair, fifo, fairShares, fifoShares);
			print(results);
			return results;
		}
	}

	private Phase phase(DeviceRegistry registry, List<Group> groups) {
		long holdNanos = this.options.holdMicros * 1000L;
		long spreadNanos = holdNanos * this.options.holdSpreadPercent / 100;
		long warmupNanos = this.options.phaseTime.toNanos() / 3;
		long measureNanos = this.options.phaseTime.toNanos();
		long begin = System.nanoTime();
		long measureFrom = begin + warmupNanos;
		long end = measureFrom + measureNanos;
		List<Thread> threads = new ArrayList<>();
		List<GroupResult> results = new ArrayList<>();
		for (Group group : groups) {
			GroupResult result = new GroupResult(group);
			results.add(result);
			SessionOptions options = SessionOptions.DEFAULTS.withTenant(group.tenanted ? group.tenant : null);
			boolean spread = spreadNanos > 0 && !group.tenant.equals("quiet");
			for (int t = 0; t < group.threads; t++) {
				boolean recorder = t == 0;
				Thread thread = new Thread(() -> {
					List<Long> latencies = recorder ? new ArrayList<>() : null;
					while (true) {
						long start = System.nanoTime();
						if (start >= end) {
							break;
						}
						try (OffloadSession session = registry.openSession(options)) {
							session.streamId();
							LockSupport.parkNanos(spread
									? holdNanos + ThreadLocalRandom.current().nextLong(-spreadNanos, spreadNanos + 1)
									: holdNanos);
						}
						long done = System.nanoTime();
						if (start >= measureFrom && done <= end) {
							result.sessions.increment();
							if (latencies != null) {
								latencies.add(done - start);
							}
						}
					}
					if (latencies != null) {
						result.latencies = latencies.stream().mapToLong(Long::longValue).toArray();
					}
				}, "tenant-" + group.tenant + "-" + t);
				thread.setDaemon(true);
				threads.add(thread);
			}
		}
		threads.forEach(Thread::start);
		for (Thread thread : threads) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		return new Phase(results, measureNanos);
	}

	private void print(Results r) {
		this.out.printf(Locale.ROOT, "Tenants on a full pool: backend %s, %d streams, hold %d us, %d s per phase%n%n",
				this.options.backend, this.options.streams, this.options.holdMicros,
				this.options.phaseTime.toSeconds());
		this.out.println("| phase | tenant | threads | sessions/s | p50 ms (thread 0) | p99 ms (thread 0) |");
		this.out.println("| --- | --- | --- | --- | --- | --- |");
		printPhase("quiet alone", r.alone);
		printPhase("flood, tenants (WFQ)", r.fair);
		printPhase("flood, no tenants (FIFO)", r.fifo);
		printPhase("unequal demand, tenants (WFQ)", r.fairShares);
		printPhase("unequal demand, no tenants (FIFO)", r.fifoShares);
		double quietRatio = (double) r.fair.group("quiet").p99() / r.alone.group("quiet").p99();
		double quietFifo = (double) r.fifo.group("quiet").p99() / r.alone.group("quiet").p99();
		double throughput = r.fair.total() / r.fifo.total();
		this.out.println();
		this.out.printf(Locale.ROOT, "quiet p99 under the flood / alone: %.2fx (target <= 1.2x; FIFO: %.2fx)%n",
				quietRatio, quietFifo);
		this.out.printf(Locale.ROOT,
				"Jain's fairness index, equal weights, unequal demand: %.3f (target >= 0.95; FIFO: %.3f)%n",
				r.fairShares.jain(), r.fifoShares.jain());
		this.out.printf(Locale.ROOT, "total throughput under the flood, tenants / FIFO: %.3fx (target >= 0.95x)%n",
				throughput);
	}

	private void printPhase(String name, Phase phase) {
		for (GroupResult g : phase.groups) {
			LatencySummary summary = LatencySummary.of(g.latencies);
			this.out.printf(Locale.ROOT, "| %s | %s | %d | %.0f | %.2f | %.2f |%n", name, g.group.tenant,
					g.group.threads, phase.rate(g), summary.p50Nanos() / 1e6, summary.p99Nanos() / 1e6);
		}
	}

	record Group(String tenant, int threads, boolean tenanted) {
	}

	static final class GroupResult {

		final Group group;

		final LongAdder sessions = new LongAdder();

		volatile long[] latencies = new long[0];

		GroupResult(Group group) {
			this.group = group;
		}

		long p99() {
			return Math.max(1, LatencySummary.of(this.latencies).p99Nanos());
		}

	}

	record Phase(List<GroupResult> groups, long nanos) {

		double rate(GroupResult group) {
			return group.sessions.sum() * 1e9 / this.nanos;
		}

		double total() {
			return this.groups.stream().mapToDouble(this::rate).sum();
		}

		GroupResult group(String tenant) {
			return this.groups.stream().filter((g) -> g.group.tenant.equals(tenant)).findFirst().orElseThrow();
		}

		/**
		 * Jain's index of the groups' throughputs: 1 when equal, 1/n when one takes all.
		 */
		double jain() {
			double sum = 0;
			double squares = 0;
			for (GroupResult group : this.groups) {
				double x = rate(group);
				sum += x;
				squares += x * x;
			}
			return (squares == 0) ? 0 : sum * sum / (this.groups.size() * squares);
		}

	}

	record Results(Phase alone, Phase fair, Phase fifo, Phase fairShares, Phase fifoShares) {
	}

	record Options(String backend, int streams, int flood, int holdMicros, int holdSpreadPercent, Duration phaseTime,
			int[] fairThreads, int floodMaxStreams) {

		static Options from(CommandLine line) {
			int streams = line.intOption("--streams", 32, 1);
			int floodMaxStreams = line.intOption("--flood-max-streams", 0, 0);
			if (floodMaxStreams >= streams) {
				throw new IllegalArgumentException("--flood-max-streams must be below --streams (" + streams
						+ "), or 0 for no limit, was " + floodMaxStreams);
			}
			return new Options(line.choice("--backend", "host", "cuda", "ffm"), streams,
					line.intOption("--flood", 100, 1), line.intOption("--hold-micros", 2000, 1),
					line.intOption("--hold-spread-percent", 0, 0, 100), line.durationSeconds("--seconds", 6, 1),
					line.intList("--fair-threads", 1, 48, 32, 24, 16), floodMaxStreams);
		}

	}

}
