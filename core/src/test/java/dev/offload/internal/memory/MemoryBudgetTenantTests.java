package dev.offload.internal.memory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import dev.offload.MemoryBudgetExceededException;
import dev.offload.RoomFailures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A full memory budget whose waiters belong to several tenants: admitted fairly across
 * tenants, each within its own limit.
 */
class MemoryBudgetTenantTests {

	/** The budget's priority classes. */
	private static final boolean NORMAL = false;

	private static final boolean HIGH = true;

	private static final long MIB = 1024 * 1024;

	private static final long LONG = TimeUnit.MINUTES.toNanos(5);

	@Test
	void aHighWaiterHeldOnlyByItsTenantsLimitShouldNotHoldBackOtherTenants() throws Exception {
		MemoryBudget budget = new MemoryBudget(0, 64 * MIB, 64 * MIB, 2, false, RoomFailures.memory());
		MemoryTenant capped = new MemoryTenant("capped", 1, 2 * MIB);
		MemoryTenant other = new MemoryTenant("other", 1, 0);
		budget.acquire(2 * MIB, NORMAL, LONG, null, capped);
		java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
		try {
			// Waits for its tenant's limit, with 62 MiB of the budget free.
			java.util.concurrent.Future<?> high = threads.submit(() -> budget.acquire(MIB, HIGH, LONG, null, capped));
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> budget.waiting() == 1);
			java.util.concurrent.Future<?> normal = threads
				.submit(() -> budget.acquire(MIB, NORMAL, LONG, null, other));
			normal.get(30, TimeUnit.SECONDS);
			assertThat(high).isNotDone();
			budget.release(2 * MIB, capped);
			high.get(30, TimeUnit.SECONDS);
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void aQuietTenantShouldBeAdmittedNextToAFloodingOnesWaiters() throws Exception {
		MemoryBudget budget = new MemoryBudget(0, 64 * MIB, 64 * MIB, 2, false, RoomFailures.memory());
		MemoryTenant flood = new MemoryTenant("flood", 1, 0);
		MemoryTenant quiet = new MemoryTenant("quiet", 1, 0);
		budget.acquire(64 * MIB, NORMAL, LONG, null);
		Queue<String> admitted = new ConcurrentLinkedQueue<>();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			threads.add(waiter(budget, flood, admitted));
			awaitWaiting(budget, i + 1);
		}
		threads.add(waiter(budget, quiet, admitted));
		awaitWaiting(budget, 31);
		// One megabyte at a time: each release admits the next waiter in the fair order.
		budget.release(MIB);
		for (Thread thread : threads) {
			thread.join(TimeUnit.MINUTES.toMillis(1));
		}
		List<String> order = new ArrayList<>(admitted);
		assertThat(order).hasSize(31);
		// First come, first served would admit it 31st.
		assertThat(order.indexOf("quiet")).isLessThanOrEqualTo(1);
		budget.release(63 * MIB);
		assertThat(budget.reservedBytes()).isZero();
	}

	private static Thread waiter(MemoryBudget budget, MemoryTenant tenant, Queue<String> admitted) {
		Thread thread = new Thread(() -> {
			budget.acquire(MIB, NORMAL, LONG, null, tenant);
			admitted.add(tenant.name());
			budget.release(MIB, tenant);
		});
		thread.setDaemon(true);
		thread.start();
		return thread;
	}

	private static void awaitWaiting(MemoryBudget budget, int count) {
		Awaitility.await()
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(1))
			.atMost(30, TimeUnit.SECONDS)
			.until(() -> budget.waiting() == count);
	}

	@Test
	void aTenantPastItsLimitShouldWaitThenFailNamingTheTenantAndLimit() {
		MemoryBudget budget = new MemoryBudget(0, 64 * MIB, 64 * MIB, 2, false, RoomFailures.memory());
		MemoryTenant capped = new MemoryTenant("reports", 1, 2 * MIB);
		budget.acquire(2 * MIB, NORMAL, LONG, null, capped);
		assertThatExceptionOfType(MemoryBudgetExceededException.class)
			.isThrownBy(() -> budget.acquire(MIB, NORMAL, TimeUnit.MILLISECONDS.toNanos(20), null, capped))
			.withMessageContaining("tenant 'reports'")
			.withMessageContaining("limit of " + 2 * MIB + " bytes")
			.satisfies((ex) -> assertThat(ex.getTenant()).isEqualTo("reports"));
		// Other tenants are not held back by its limit.
		budget.acquire(MIB, NORMAL, LONG, null, new MemoryTenant("other", 1, 0));
		assertThatExceptionOfType(MemoryBudgetExceededException.class)
			.isThrownBy(() -> budget.acquire(3 * MIB, NORMAL, LONG, null, new MemoryTenant("small", 1, 2 * MIB)))
			.withMessageContaining("tenant 'small'")
			.satisfies((ex) -> assertThat(ex.getWaited()).isZero());
		// Its own release lets it in again.
		budget.release(MIB, capped);
		budget.acquire(MIB, NORMAL, LONG, null, capped);
		assertThat(capped.heldBytes()).isEqualTo(2 * MIB);
	}

}
