package dev.offload.spring.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;
import org.springframework.util.function.SingletonSupplier;

import dev.offload.Device;
import dev.offload.OffloadListener;
import dev.offload.OffloadSession;
import dev.offload.StreamPool;
import dev.offload.TenantPolicy;
import dev.offload.TenantStatistics;
import dev.offload.template.BatchListener;

/**
 * {@link OffloadListener} that measures each tenant's sessions: the timer
 * {@code offload.tenant.sessions} (sessions closed and how long each was open, tagged
 * {@code outcome}: {@code success} or {@code failure}) and the gauge
 * {@code offload.tenant.sessions.active} (sessions open); and, from the pool's
 * {@link StreamPool#tenantStatistics() tenant statistics}, its use of the device's
 * streams: the gauges {@code offload.tenant.streams.active} (streams held) and
 * {@code offload.tenant.streams.pending} (borrowers waiting) and the function timer
 * {@code offload.tenant.streams.acquire} (borrows and their waits), and of its memory
 * budget: the function timer {@code offload.tenant.memory.waits} and the function counter
 * {@code offload.tenant.memory.refused}, registered once the pool has counted the tenant.
 * Each is tagged {@code device}, {@code backend} and {@code tenant}. As a
 * {@link BatchListener}, the timer {@code offload.tenant.batch.queue.delay} (each batched
 * item's wait in its batcher's queue, tagged {@code kernel} and {@code tenant}). A
 * session opened without a tenant is {@value TenantPolicy#DEFAULT_TENANT}'s. The
 * {@code tenant} tag is bounded by the registry's
 * {@link TenantPolicy#maxTrackedTenants()}: the tenants the policy names, then the first
 * others to open a session, keep their name; every further tenant is counted as
 * {@value TenantPolicy#OTHER_TENANTS}, so that a client choosing tenant names cannot grow
 * the meters without bound.
 */
public final class OffloadTenantMetrics implements OffloadListener, BatchListener, MeterBinder {

	private final Supplier<TenantPolicy> policy;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	/** Tenant to its tag, for the tenants tracked by name. */
	private final Map<String, String> tracked = new ConcurrentHashMap<>();

	private final Map<Key, AtomicInteger> active = new ConcurrentHashMap<>();

	/** The rows of each pool's tenant statistics whose meters are registered. */
	private final Map<Key, Boolean> poolMeters = new ConcurrentHashMap<>();

	private volatile boolean named;

	/**
	 * Creates the meters.
	 * @param policy supplies the registry's tenant policy, on the first session (the
	 * registry is built after its listeners)
	 */
	public OffloadTenantMetrics(Supplier<TenantPolicy> policy) {
		this.policy = SingletonSupplier.of(policy);
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registries.add(registry);
		this.active.forEach((key, open) -> gauge(registry, key, open));
		this.poolMeters.keySet().forEach((key) -> poolMeters(registry, key));
	}

	@Override
	public void sessionOpened(OffloadSession session) {
		Key key = new Key(session.device(), tagOf(session.tenant()));
		this.active.computeIfAbsent(key, this::register).incrementAndGet();
	}

	@Override
	public void sessionClosed(OffloadSession session, long durationNanos, @Nullable Throwable failure) {
		Key key = new Key(session.device(), tagOf(session.tenant()));
		AtomicInteger open = this.active.get(key);
		if (open != null) {
			open.decrementAndGet();
		}
		if (!this.poolMeters.containsKey(key)) {
			// The pool counts a tenant from its first borrow, which follows the opening.
			for (TenantStatistics row : session.device().streamPool().tenantStatistics()) {
				this.poolMeters.computeIfAbsent(new Key(session.device(), row.tenant()), this::registerPoolMeters);
			}
		}
		for (MeterRegistry registry : this.registries) {
			Timer.builder(OffloadMeters.TENANT_SESSIONS)
				.description("Sessions of a tenant closed, and how long each was open")
				.tags(key.tags())
				.tag("outcome", (failure == null) ? "success" : "failure")
				.register(registry)
				.record(durationNanos, TimeUnit.NANOSECONDS);
		}
	}

	/**
	 * Records each item's wait in a batcher's queue under its tenant's tag, so that a
	 * tenant whose items wait longer than others' in shared batches shows.
	 */
	@Override
	public void batchCompleted(CompletedBatch batch) {
		if (this.registries.isEmpty()) {
			return;
		}
		Map<String, List<Timer>> timers = new HashMap<>();
		long[] delays = batch.queueDelaysNanos();
		String[] tenants = batch.tenants();
		for (int i = 0; i < delays.length; i++) {
			String tag = tagOf(tenants[i]);
			for (Timer timer : timers.computeIfAbsent(tag, (each) -> batchTimers(batch.name(), each))) {
				timer.record(delays[i], TimeUnit.NANOSECONDS);
			}
		}
	}

	private List<Timer> batchTimers(String kernel, String tenant) {
		List<Timer> timers = new ArrayList<>(this.registries.size());
		for (MeterRegistry registry : this.registries) {
			timers.add(Timer.builder(OffloadMeters.TENANT_BATCH_QUEUE_DELAY)
				.description("Time a tenant's item waited in a batcher's queue before its batch was dispatched")
				.tags("kernel", kernel, "tenant", tenant)
				.register(registry));
		}
		return timers;
	}

	/**
	 * The tag of a tenant: its name while fewer than the tracked bound are named, else
	 * {@value TenantPolicy#OTHER_TENANTS}.
	 */
	String tagOf(@Nullable String tenant) {
		String name = (tenant != null) ? tenant : TenantPolicy.DEFAULT_TENANT;
		String tag = this.tracked.get(name);
		if (tag != null) {
			return tag;
		}
		TenantPolicy policy = this.policy.get();
		synchronized (this.tracked) {
			if (!this.named) {
				policy.tenants().keySet().forEach((each) -> this.tracked.put(each, each));
				this.named = true;
				tag = this.tracked.get(name);
				if (tag != null) {
					return tag;
				}
			}
			if (this.tracked.size() < policy.maxTrackedTenants()) {
				this.tracked.put(name, name);
				return name;
			}
		}
		return TenantPolicy.OTHER_TENANTS;
	}

	private AtomicInteger register(Key key) {
		AtomicInteger open = new AtomicInteger();
		for (MeterRegistry registry : this.registries) {
			gauge(registry, key, open);
		}
		return open;
	}

	private Boolean registerPoolMeters(Key key) {
		for (MeterRegistry registry : this.registries) {
			poolMeters(registry, key);
		}
		return Boolean.TRUE;
	}

	/**
	 * The tenant's use of its device's pool and memory budget, read from the pool's
	 * tenant statistics at each scrape: streams held, borrowers waiting, borrows with
	 * their waits, the budget's waits and refusals.
	 */
	private static void poolMeters(MeterRegistry registry, Key key) {
		StreamPool pool = key.device().streamPool();
		String tenant = key.tenant();
		Gauge.builder(OffloadMeters.TENANT_STREAMS_ACTIVE, pool, (p) -> row(p, tenant).inUse())
			.description("Streams a tenant's sessions hold")
			.baseUnit(OffloadMeters.UNIT_STREAMS)
			.tags(key.tags())
			.register(registry);
		Gauge.builder(OffloadMeters.TENANT_STREAMS_PENDING, pool, (p) -> row(p, tenant).waiting())
			.description("A tenant's borrowers waiting for a stream")
			.baseUnit(OffloadMeters.UNIT_THREADS)
			.tags(key.tags())
			.register(registry);
		FunctionTimer
			.builder(OffloadMeters.TENANT_STREAMS_ACQUIRE, pool, (p) -> row(p, tenant).borrows(),
					(p) -> row(p, tenant).totalWaitNanos(), TimeUnit.NANOSECONDS)
			.description("A tenant's borrows of a stream and how long they waited")
			.tags(key.tags())
			.register(registry);
		FunctionTimer
			.builder(OffloadMeters.TENANT_MEMORY_WAITS, pool, (p) -> row(p, tenant).memoryWaits(),
					(p) -> row(p, tenant).memoryWaitNanos(), TimeUnit.NANOSECONDS)
			.description("A tenant's requests that waited for the memory budget and how long they waited")
			.tags(key.tags())
			.register(registry);
		FunctionCounter.builder(OffloadMeters.TENANT_MEMORY_REFUSED, pool, (p) -> row(p, tenant).memoryRefusals())
			.description("A tenant's requests the memory budget or its memory limit refused")
			.baseUnit(OffloadMeters.UNIT_REQUESTS)
			.tags(key.tags())
			.register(registry);
	}

	private static TenantStatistics row(StreamPool pool, String tenant) {
		TenantStatistics row = pool.tenantStatistics(tenant);
		return (row != null) ? row : new TenantStatistics(tenant, 0, 0, 0, 0, 0, 0, 0);
	}

	private static void gauge(MeterRegistry registry, Key key, AtomicInteger open) {
		Gauge.builder(OffloadMeters.TENANT_SESSIONS_ACTIVE, open, AtomicInteger::get)
			.description("Sessions of a tenant open")
			.baseUnit(OffloadMeters.UNIT_SESSIONS)
			.tags(key.tags())
			.strongReference(true)
			.register(registry);
	}

	/** The device and the tenant's tag of a session. */
	private record Key(Device device, String tenant) {

		Tags tags() {
			return OffloadMeters.tags(this.device).and("tenant", this.tenant);
		}

	}

}
