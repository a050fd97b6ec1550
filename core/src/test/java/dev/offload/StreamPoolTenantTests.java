package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.TenantPolicy.TenantShare;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A full bounded pool whose waiters belong to several tenants: served by weighted fair
 * queuing, each tenant within its stream limit, counted per tenant.
 */
class StreamPoolTenantTests {

	private DeviceRegistry registry;

	@AfterEach
	void tearDown() {
		if (this.registry != null) {
			this.registry.close(Duration.ZERO);
		}
	}

	private StreamPool pool(int maxSize, TenantPolicy policy) {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(1).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(maxSize)
				.withMaxSize(maxSize)
				.withBorrowTimeout(Duration.ofMinutes(5)))
			.tenants(policy)
			.build();
		return this.registry.device(0).streamPool();
	}

	private static Thread borrower(StreamPool pool, String tenant, Queue<String> served) {
		Thread thread = new Thread(() -> {
			PooledStream stream = pool.borrow(StreamPriority.NORMAL, null, 0, tenant);
			served.add(tenant);
			pool.release(stream);
		}, tenant + "-borrower");
		thread.setDaemon(true);
		thread.start();
		return thread;
	}

	private static void awaitWaiting(StreamPool pool, int count) {
		Awaitility.await()
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(1))
			.atMost(1, TimeUnit.MINUTES)
			.until(() -> pool.waiting() == count);
	}

	@Test
	void aQuietTenantShouldNotWaitBehindAFloodingOnesHundredWaiters() throws Exception {
		StreamPool pool = pool(1, TenantPolicy.DEFAULTS);
		PooledStream held = pool.borrow(StreamPriority.NORMAL);
		Queue<String> served = new ConcurrentLinkedQueue<>();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			threads.add(borrower(pool, "flood", served));
			awaitWaiting(pool, i + 1);
		}
		// The quiet tenant comes last: first come, first served would serve it 101st.
		threads.add(borrower(pool, "quiet", served));
		awaitWaiting(pool, 101);
		pool.release(held);
		for (Thread thread : threads) {
			thread.join(TimeUnit.MINUTES.toMillis(1));
		}
		List<String> order = new ArrayList<>(served);
		assertThat(order).hasSize(101);
		assertThat(order.indexOf("quiet")).isLessThanOrEqualTo(1);
		assertThat(pool.tenantStatistics()).filteredOn((t) -> t.tenant().equals("quiet"))
			.singleElement()
			.satisfies((t) -> assertThat(t.borrows()).isEqualTo(1));
		TenantStatistics flood = pool.tenantStatistics()
			.stream()
			.filter((t) -> t.tenant().equals("flood"))
			.findFirst()
			.orElseThrow();
		assertThat(flood.borrows()).isEqualTo(100);
		assertThat(flood.inUse()).isZero();
		assertThat(flood.totalWaitNanos()).isPositive();
	}

	@Test
	void aTenantAtItsStreamLimitShouldWaitWhileOthersBorrow() throws Exception {
		StreamPool pool = pool(4, TenantPolicy.DEFAULTS.withTenant("capped", new TenantShare(1, 2, 0)));
		PooledStream first = pool.borrow(StreamPriority.NORMAL, null, 0, "capped");
		PooledStream second = pool.borrow(StreamPriority.NORMAL, null, 0, "capped");
		Queue<String> served = new ConcurrentLinkedQueue<>();
		Thread third = borrower(pool, "capped", served);
		awaitWaiting(pool, 1);
		// Two streams are idle, yet the capped tenant waits; another tenant borrows them.
		PooledStream other = pool.borrow(StreamPriority.NORMAL, null, 0, "other-tenant");
		PooledStream another = pool.borrow(StreamPriority.NORMAL, null, 0, "other-tenant");
		assertThat(served).isEmpty();
		assertThat(pool.tenantStatistics()).filteredOn((t) -> t.tenant().equals("capped"))
			.singleElement()
			.satisfies((t) -> {
				assertThat(t.inUse()).isEqualTo(2);
				assertThat(t.waiting()).isEqualTo(1);
			});
		// A stream of another tenant coming back does not go to the capped one.
		pool.release(other);
		assertThat(pool.waiting()).isEqualTo(1);
		// Its own does.
		pool.release(first);
		third.join(TimeUnit.MINUTES.toMillis(1));
		assertThat(served).containsExactly("capped");
		pool.release(second);
		pool.release(another);
		assertThat(pool.inUse()).isZero();
	}

	@Test
	void tenantsPastTheTrackedBoundShouldBeCountedAsOther() {
		StreamPool pool = pool(4, TenantPolicy.DEFAULTS.withMaxTrackedTenants(2));
		for (String tenant : List.of("a", "b", "c", "d")) {
			pool.release(pool.borrow(StreamPriority.NORMAL, null, 0, tenant));
		}
		pool.release(pool.borrow(StreamPriority.NORMAL));
		assertThat(pool.tenantStatistics()).extracting(TenantStatistics::tenant)
			.containsExactly("a", "b", TenantPolicy.OTHER_TENANTS);
		assertThat(pool.tenantStatistics()).extracting(TenantStatistics::borrows).containsExactly(1L, 1L, 3L);
	}

	@Test
	void tenantsShouldBeTrackedInTheOrderTheirSessionsOpenAsTheSessionMetersCountThem() {
		StreamPool pool = pool(4, TenantPolicy.DEFAULTS.withMaxTrackedTenants(1));
		// The first session borrows nothing: its tenant still takes the one tracked name.
		this.registry.openSession(SessionOptions.DEFAULTS.withTenant("opened")).close();
		try (OffloadSession session = this.registry.openSession(SessionOptions.DEFAULTS.withTenant("borrower"))) {
			session.streamId();
		}
		assertThat(pool.tenantStatistics()).extracting(TenantStatistics::tenant)
			.containsExactly("opened", TenantPolicy.OTHER_TENANTS);
		assertThat(pool.tenantStatistics()).extracting(TenantStatistics::borrows).containsExactly(0L, 1L);
	}

	@Test
	void aTenantsRowShouldBeItsRowOfTheListAndAnUnknownOneNone() {
		StreamPool pool = pool(4, TenantPolicy.DEFAULTS.withMaxTrackedTenants(2));
		assertThat(pool.tenantStatistics(TenantPolicy.OTHER_TENANTS)).isNull();
		for (String tenant : List.of("a", "b", "c", "d")) {
			pool.release(pool.borrow(StreamPriority.NORMAL, null, 0, tenant));
		}
		PooledStream held = pool.borrow(StreamPriority.NORMAL, null, 0, "a");
		for (TenantStatistics row : pool.tenantStatistics()) {
			assertThat(pool.tenantStatistics(row.tenant())).isEqualTo(row);
		}
		assertThat(pool.tenantStatistics("a").inUse()).isEqualTo(1);
		assertThat(pool.tenantStatistics(TenantPolicy.OTHER_TENANTS).borrows()).isEqualTo(2);
		assertThat(pool.tenantStatistics("c")).isNull();
		assertThatIllegalArgumentException().isThrownBy(() -> pool.tenantStatistics((String) null));
		pool.release(held);
	}

}
