package dev.offload;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * How a device's streams and memory are shared among tenants when callers wait for them:
 * each tenant's weight, and the most streams and memory one tenant holds at once. A
 * waiting tenant is served in proportion to its weight, whatever the number of its
 * waiters (weighted fair queuing); a tenant that waits for nothing earns no credit for
 * later. Tenants the policy does not name have {@link #defaultWeight()} and no limits.
 * Validated when built; {@link #DEFAULTS} gives every tenant weight 1. <pre>{@code
 * TenantPolicy policy = TenantPolicy.DEFAULTS
 *     .withTenant("checkout", new TenantPolicy.TenantShare(4, 0, 0))
 *     .withTenant("reports", new TenantPolicy.TenantShare(1, 8, 2L << 30));
 * DeviceRegistry.builder(backend).tenants(policy).build();
 * }</pre>
 *
 * @param defaultWeight the weight of a tenant the policy does not name, from 1 to
 * {@value #MAX_WEIGHT}
 * @param tenants the shares of named tenants
 * @param maxTrackedTenants the most tenants whose statistics are kept by name (the named
 * ones count first); statistics of further tenants are summed up as
 * {@value #OTHER_TENANTS}, while their fairness is still each their own
 */
public record TenantPolicy(int defaultWeight, Map<String, TenantShare> tenants, int maxTrackedTenants) {

	/**
	 * The tenant of a session opened without one.
	 */
	public static final String DEFAULT_TENANT = "default";

	/**
	 * The name under which tenants past {@link #maxTrackedTenants()} are counted.
	 */
	public static final String OTHER_TENANTS = "other";

	/**
	 * The largest weight.
	 */
	public static final int MAX_WEIGHT = 1000;

	/**
	 * The longest tenant name.
	 */
	public static final int MAX_TENANT_LENGTH = 64;

	/**
	 * The default bound on tenants tracked by name.
	 */
	public static final int DEFAULT_MAX_TRACKED_TENANTS = 64;

	/**
	 * The defaults: weight 1 for every tenant, no limits,
	 * {@value #DEFAULT_MAX_TRACKED_TENANTS} tenants tracked by name.
	 */
	public static final TenantPolicy DEFAULTS = new TenantPolicy(1, Map.of(), DEFAULT_MAX_TRACKED_TENANTS);

	private static final Pattern TENANT_NAME = Pattern.compile("[A-Za-z0-9._:@-]{1," + MAX_TENANT_LENGTH + "}");

	/**
	 * Checks the values.
	 * @throws InvalidSettingException naming the value and its rule
	 */
	public TenantPolicy {
		checkWeight(defaultWeight, "tenants.default-weight");
		if (tenants == null) {
			throw new InvalidSettingException("tenants", "tenants must not be null");
		}
		for (Map.Entry<String, TenantShare> entry : tenants.entrySet()) {
			checkTenant(entry.getKey(), "tenants");
			if (entry.getValue() == null) {
				throw new InvalidSettingException("tenants." + entry.getKey(),
						"tenants." + entry.getKey() + " must not be null");
			}
		}
		if (maxTrackedTenants < tenants.size() || maxTrackedTenants < 1) {
			throw new InvalidSettingException("tenants.max-tracked",
					"tenants.max-tracked must be at least 1 and at least the number of named tenants (" + tenants.size()
							+ "), was " + maxTrackedTenants);
		}
		tenants = tenants.isEmpty() ? Map.of() : Map.copyOf(tenants);
	}

	/**
	 * Checks a tenant's name: 1 to {@value #MAX_TENANT_LENGTH} characters of ASCII
	 * letters, digits and {@code . _ : @ -}.
	 * @param tenant the name
	 * @param setting the setting it came from, for the exception
	 * @return the name
	 * @throws InvalidSettingException naming the tenant and the rule
	 */
	public static String checkTenant(@Nullable String tenant, String setting) {
		if (tenant == null || !TENANT_NAME.matcher(tenant).matches()) {
			throw new InvalidSettingException(setting, setting + " '" + tenant + "' is not a tenant name: use 1 to "
					+ MAX_TENANT_LENGTH + " characters of letters, digits and . _ : @ -");
		}
		return tenant;
	}

	private static void checkWeight(int weight, String setting) {
		if (weight < 1 || weight > MAX_WEIGHT) {
			throw new InvalidSettingException(setting,
					setting + " must be from 1 to " + MAX_WEIGHT + ", was " + weight);
		}
	}

	/**
	 * Returns the share of a tenant: its own, or the default weight without limits.
	 * @param tenant the tenant, or {@code null} for {@link #DEFAULT_TENANT}
	 * @return the share
	 */
	public TenantShare shareOf(@Nullable String tenant) {
		TenantShare share = this.tenants.get((tenant != null) ? tenant : DEFAULT_TENANT);
		return (share != null) ? share : new TenantShare(this.defaultWeight, 0, 0);
	}

	/**
	 * Returns the weight of a tenant.
	 * @param tenant the tenant, or {@code null} for {@link #DEFAULT_TENANT}
	 * @return the weight, at least 1
	 */
	public int weightOf(@Nullable String tenant) {
		return shareOf(tenant).weight();
	}

	/**
	 * Returns a copy with a named tenant's share.
	 * @param tenant the tenant
	 * @param share its share
	 * @return the new policy
	 * @throws InvalidSettingException if the name is not a tenant name, or the tenants
	 * named would exceed {@link #maxTrackedTenants()}
	 */
	public TenantPolicy withTenant(String tenant, TenantShare share) {
		Map<String, TenantShare> copy = new LinkedHashMap<>(this.tenants);
		copy.put(checkTenant(tenant, "tenants"), Objects.requireNonNull(share, "share must not be null"));
		return new TenantPolicy(this.defaultWeight, copy, this.maxTrackedTenants);
	}

	/**
	 * Returns a copy with another weight for tenants not named.
	 * @param weight the weight, from 1 to {@value #MAX_WEIGHT}
	 * @return the new policy
	 */
	public TenantPolicy withDefaultWeight(int weight) {
		return new TenantPolicy(weight, this.tenants, this.maxTrackedTenants);
	}

	/**
	 * Returns a copy with another bound on tenants tracked by name.
	 * @param max the bound, at least 1 and at least the tenants named
	 * @return the new policy
	 */
	public TenantPolicy withMaxTrackedTenants(int max) {
		return new TenantPolicy(this.defaultWeight, this.tenants, max);
	}

	/**
	 * One tenant's share of a device.
	 *
	 * @param weight its weight against other waiting tenants, from 1 to
	 * {@value TenantPolicy#MAX_WEIGHT}: with weight 2 it is served twice as often as a
	 * tenant of weight 1 while both wait
	 * @param maxStreams the most streams it holds at once, or 0 for no limit of its own
	 * (its further borrows wait; other tenants do not)
	 * @param maxMemoryBytes the most budgeted device memory it holds at once, or 0 for no
	 * limit of its own (a reservation past it waits, then fails as the budget does)
	 */
	public record TenantShare(int weight, int maxStreams, long maxMemoryBytes) {

		/**
		 * Checks the values.
		 * @throws InvalidSettingException naming the value and its rule
		 */
		public TenantShare {
			checkWeight(weight, "weight");
			if (maxStreams < 0) {
				throw new InvalidSettingException("max-streams",
						"max-streams must be 0 (no limit) or positive, was " + maxStreams);
			}
			if (maxMemoryBytes < 0) {
				throw new InvalidSettingException("max-memory",
						"max-memory must be 0 (no limit) or positive, was " + maxMemoryBytes);
			}
		}

		/**
		 * Returns a share of a weight, without limits.
		 * @param weight the weight, from 1 to {@value TenantPolicy#MAX_WEIGHT}
		 * @return the share
		 */
		public static TenantShare ofWeight(int weight) {
			return new TenantShare(weight, 0, 0);
		}

	}

}
