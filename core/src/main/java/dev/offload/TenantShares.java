package dev.offload;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.lending.LendingTenant;

/**
 * A device's tenants as its stream pool lends to them: each name's {@link LendingTenant}
 * (weight, stream limit, counters), made on first use. The tenants the policy names, and
 * others up to its tracked bound, count on their own; the rest share the counters of
 * {@link TenantPolicy#OTHER_TENANTS} but still queue under their own name, so fairness
 * stays per tenant.
 */
final class TenantShares {

	private final TenantPolicy policy;

	private final Map<String, LendingTenant> tracked = new ConcurrentHashMap<>();

	private final LendingTenant.Counters others = new LendingTenant.Counters();

	TenantShares(TenantPolicy policy) {
		this.policy = policy;
		for (Map.Entry<String, TenantPolicy.TenantShare> entry : policy.tenants().entrySet()) {
			this.tracked.put(entry.getKey(), lendingTenant(entry.getKey()));
		}
	}

	/**
	 * Returns the tenant that borrows for a session.
	 * @param tenant the session's tenant, or {@code null} for the default one
	 * @return the tenant
	 */
	LendingTenant of(@Nullable String tenant) {
		String name = (tenant != null) ? tenant : TenantPolicy.DEFAULT_TENANT;
		LendingTenant known = this.tracked.get(name);
		if (known != null) {
			return known;
		}
		synchronized (this) {
			known = this.tracked.get(name);
			if (known != null) {
				return known;
			}
			if (this.tracked.size() < this.policy.maxTrackedTenants()) {
				LendingTenant made = lendingTenant(name);
				this.tracked.put(name, made);
				return made;
			}
		}
		// Past the tracked bound: a tenant of no limit, counted with the others.
		return new LendingTenant(name, this.policy.weightOf(name), this.others);
	}

	private LendingTenant lendingTenant(String name) {
		TenantPolicy.TenantShare share = this.policy.shareOf(name);
		return new LendingTenant(name, share.weight(), share.maxStreams());
	}

	/**
	 * Returns the statistics of each tenant tracked by name, and of the others together
	 * once any counted there.
	 */
	List<TenantStatistics> statistics() {
		List<TenantStatistics> statistics = new ArrayList<>();
		this.tracked.values().forEach((tenant) -> statistics.add(statisticsOf(tenant.name(), tenant.counters())));
		if (this.others.borrows() > 0 || this.others.waiting() > 0) {
			statistics.add(statisticsOf(TenantPolicy.OTHER_TENANTS, this.others));
		}
		statistics.sort((a, b) -> a.tenant().compareTo(b.tenant()));
		return List.copyOf(statistics);
	}

	private static TenantStatistics statisticsOf(String name, LendingTenant.Counters counters) {
		return new TenantStatistics(name, counters.inUse(), counters.waiting(), counters.borrows(),
				counters.waitNanos());
	}

}
