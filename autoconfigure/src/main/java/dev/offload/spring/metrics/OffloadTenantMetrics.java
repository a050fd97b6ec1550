package dev.offload.spring.metrics;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

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
import dev.offload.TenantPolicy;

/**
 * {@link OffloadListener} that measures each tenant's sessions: the timer
 * {@code offload.tenant.sessions} (sessions closed and how long each was open, tagged
 * {@code outcome}: {@code success} or {@code failure}) and the gauge
 * {@code offload.tenant.sessions.active} (sessions open), each tagged {@code device},
 * {@code backend} and {@code tenant}. A session opened without a tenant is
 * {@value TenantPolicy#DEFAULT_TENANT}'s. The {@code tenant} tag is bounded by the
 * registry's {@link TenantPolicy#maxTrackedTenants()}: the tenants the policy names, then
 * the first others to open a session, keep their name; every further tenant is counted as
 * {@value TenantPolicy#OTHER_TENANTS}, so that a client choosing tenant names cannot grow
 * the meters without bound.
 */
public final class OffloadTenantMetrics implements OffloadListener, MeterBinder {

	private final Supplier<TenantPolicy> policy;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	/** Tenant to its tag, for the tenants tracked by name. */
	private final Map<String, String> tracked = new ConcurrentHashMap<>();

	private final Map<Key, AtomicInteger> active = new ConcurrentHashMap<>();

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
