package dev.offload;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.lending.LendingTenant;
import dev.offload.internal.memory.MemoryTenant;

/**
 * A device's tenants as its stream pool lends to them and its memory budget admits them:
 * each name's {@link LendingTenant} (weight, stream limit, counters) and
 * {@link MemoryTenant} (weight, memory limit, counters), made on first use. The tenants
 * the policy names, and others up to its tracked bound, count on their own; the rest
 * share the counters of {@link TenantPolicy#OTHER_TENANTS} but still queue under their
 * own name, so fairness stays per tenant. Both views track the same names.
 */
final class TenantShares {

	private final TenantPolicy policy;

	private final Map<String, Tenant> tracked = new ConcurrentHashMap<>();

	private final LendingTenant.Counters others = new LendingTenant.Counters();

	private final MemoryTenant.Counters othersMemory = new MemoryTenant.Counters();

	TenantShares(TenantPolicy policy) {
		this.policy = policy;
		for (String name : policy.tenants().keySet()) {
			this.tracked.put(name, tracked(name));
		}
	}

	/**
	 * Resolves a session's tenant as the session opens, once for its borrow, its
	 * reservations and its end: tracked by name while under the bound (so the tenants
	 * tracked are the first to open a session, as the session meters count them, whether
	 * or not they borrow or reserve), else counted with the others.
	 * @param tenant the name, or {@code null} for {@link TenantPolicy#DEFAULT_TENANT}
	 * @return the tenant's two views
	 */
	Tenant opened(@Nullable String tenant) {
		String name = nameOf(tenant);
		Tenant known = tenant(name);
		if (known != null) {
			return known;
		}
		int weight = this.policy.weightOf(name);
		return new Tenant(new LendingTenant(name, weight, this.others),
				new MemoryTenant(name, weight, 0, this.othersMemory));
	}

	/**
	 * Returns a tenant as the stream pool lends to it.
	 * @param tenant the name, or {@code null} for {@link TenantPolicy#DEFAULT_TENANT}
	 * @return the tenant
	 */
	LendingTenant of(@Nullable String tenant) {
		return opened(tenant).lending();
	}

	/**
	 * Returns the statistics of each tenant tracked by name, and of the others together
	 * once any counted there.
	 */
	List<TenantStatistics> statistics() {
		List<TenantStatistics> statistics = new ArrayList<>();
		this.tracked.values()
			.forEach((tenant) -> statistics
				.add(statisticsOf(tenant.lending().name(), tenant.lending().counters(), tenant.memory().counters())));
		if (othersCounted()) {
			statistics.add(statisticsOf(TenantPolicy.OTHER_TENANTS, this.others, this.othersMemory));
		}
		statistics.sort((a, b) -> a.tenant().compareTo(b.tenant()));
		return List.copyOf(statistics);
	}

	/**
	 * Returns the statistics of one name as {@link #statistics()} lists them, without
	 * building the list: a meter per tenant reads its own row.
	 * @param name a tenant tracked by name, or {@link TenantPolicy#OTHER_TENANTS}
	 * @return the statistics, or {@code null} if the list has no such row
	 */
	@Nullable TenantStatistics statistics(String name) {
		Tenant tenant = this.tracked.get(name);
		if (tenant != null) {
			return statisticsOf(name, tenant.lending().counters(), tenant.memory().counters());
		}
		if (name.equals(TenantPolicy.OTHER_TENANTS) && othersCounted()) {
			return statisticsOf(TenantPolicy.OTHER_TENANTS, this.others, this.othersMemory);
		}
		return null;
	}

	private boolean othersCounted() {
		return this.others.borrows() > 0 || this.others.waiting() > 0 || this.othersMemory.waits() > 0
				|| this.othersMemory.refusals() > 0;
	}

	private static String nameOf(@Nullable String tenant) {
		return (tenant != null) ? tenant : TenantPolicy.DEFAULT_TENANT;
	}

	/** Returns the tracked tenant of a name, tracking it while under the bound. */
	private @Nullable Tenant tenant(String name) {
		Tenant known = this.tracked.get(name);
		if (known != null) {
			return known;
		}
		synchronized (this) {
			known = this.tracked.get(name);
			if (known == null && this.tracked.size() < this.policy.maxTrackedTenants()) {
				known = tracked(name);
				this.tracked.put(name, known);
			}
			return known;
		}
	}

	private Tenant tracked(String name) {
		TenantPolicy.TenantShare share = this.policy.shareOf(name);
		return new Tenant(new LendingTenant(name, share.weight(), share.maxStreams()),
				new MemoryTenant(name, share.weight(), share.maxMemoryBytes()));
	}

	private static TenantStatistics statisticsOf(String name, LendingTenant.Counters streams,
			MemoryTenant.Counters memory) {
		return new TenantStatistics(name, streams.inUse(), streams.waiting(), streams.borrows(), streams.waitNanos(),
				memory.waits(), memory.waitNanos(), memory.refusals());
	}

	/**
	 * A tenant's two views: how the stream pool lends to it and how the memory budget
	 * admits it.
	 */
	record Tenant(LendingTenant lending, MemoryTenant memory) {

	}

}
