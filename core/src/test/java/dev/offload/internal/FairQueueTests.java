package dev.offload.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Weighted fair queuing across tenants, deterministically: the order in which waiters
 * queued by several tenants are served.
 */
class FairQueueTests {

	private final FairQueue<String> queue = new FairQueue<>();

	private void add(String tenant, int weight, int count) {
		for (int i = 0; i < count; i++) {
			this.queue.add(tenant, weight, tenant + i);
		}
	}

	private List<String> serveTenants(int count) {
		List<String> served = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			FairQueue.Entry<String> next = this.queue.poll();
			if (next == null) {
				break;
			}
			served.add(next.tenant());
		}
		return served;
	}

	@Test
	void aQuietTenantShouldBeServedNextToAFloodingOne() {
		add("flood", 1, 100);
		add("quiet", 1, 1);
		List<String> served = serveTenants(101);
		// First come, first served would serve it last, at 100.
		assertThat(served.indexOf("quiet")).isLessThanOrEqualTo(1);
	}

	@Test
	void tenantsShouldBeServedInProportionToTheirWeights() {
		add("gold", 3, 300);
		add("bronze", 1, 300);
		List<String> served = serveTenants(400);
		assertThat(Collections.frequency(served, "gold")).isEqualTo(300);
		assertThat(Collections.frequency(served, "bronze")).isEqualTo(100);
		// Interleaved, not in runs: every window of 8 has both.
		for (int i = 0; i + 8 <= served.size(); i++) {
			assertThat(served.subList(i, i + 8)).contains("gold", "bronze");
		}
	}

	@Test
	void withinATenantWaitersShouldBeServedInOrder() {
		add("a", 1, 5);
		add("b", 1, 5);
		List<String> aOrder = new ArrayList<>();
		FairQueue.Entry<String> next;
		while ((next = this.queue.poll()) != null) {
			if (next.tenant().equals("a")) {
				aOrder.add(next.item());
			}
		}
		assertThat(aOrder).containsExactly("a0", "a1", "a2", "a3", "a4");
	}

	@Test
	void noTenantShouldStarveHoweverLightItsWeight() {
		add("heavy", 1000, 5000);
		add("light", 1, 2);
		List<String> served = serveTenants(5002);
		// Served once per 1000 of the heavy tenant's, as the weights say.
		assertThat(served.indexOf("light")).isBetween(990, 1002);
		assertThat(served.lastIndexOf("light")).isBetween(1990, 2004);
	}

	@Test
	void anIdleTenantShouldEarnNoCredit() {
		// "busy" is served alone for a long time while "idle" waits for nothing.
		add("busy", 1, 1000);
		assertThat(serveTenants(900)).containsOnly("busy");
		// "idle" comes back with ten waiters: it shares from now on, it does not get
		// the 900 turns it missed.
		add("idle", 1, 10);
		List<String> next = serveTenants(20);
		assertThat(Collections.frequency(next, "idle")).isEqualTo(10);
		assertThat(Collections.frequency(next.subList(0, 10), "busy")).isGreaterThanOrEqualTo(4);
	}

	@Test
	void aTenantAtItsLimitShouldBePassedOverAndOthersServed() {
		add("capped", 1, 3);
		add("free", 1, 3);
		List<String> served = new ArrayList<>();
		FairQueue.Entry<String> next;
		while ((next = this.queue.poll((item) -> !item.startsWith("capped"))) != null) {
			served.add(next.tenant());
		}
		assertThat(served).containsExactly("free", "free", "free");
		assertThat(this.queue.size("capped")).isEqualTo(3);
	}

	@Test
	void aRequeuedEntryShouldKeepItsPlaceAndARemovedOneLeave() {
		FairQueue.Entry<String> first = this.queue.add("a", 1, "a0");
		this.queue.add("a", 1, "a1");
		FairQueue.Entry<String> polled = this.queue.poll();
		assertThat(polled).isSameAs(first);
		this.queue.requeue(polled);
		assertThat(this.queue.poll().item()).isEqualTo("a0");
		FairQueue.Entry<String> second = this.queue.add("b", 1, "b0");
		assertThat(this.queue.remove(second)).isTrue();
		assertThat(this.queue.remove(second)).isFalse();
		assertThat(this.queue.size()).isEqualTo(1);
	}

	@Test
	void manyTenantsComingAndGoingShouldBeForgottenOnceIdle() {
		for (int i = 0; i < 1000; i++) {
			this.queue.add("tenant-" + i, 1, "x");
			assertThat(this.queue.poll()).isNotNull();
		}
		assertThat(this.queue.isEmpty()).isTrue();
		add("a", 1, 2);
		add("b", 1, 2);
		assertThat(serveTenants(4)).containsExactly("a", "b", "a", "b");
	}

	@Test
	void theServiceOrderShouldBeTheOrderOfPolls() {
		add("gold", 3, 30);
		add("bronze", 1, 20);
		add("quiet", 1, 2);
		FairQueue<String> empty = new FairQueue<>();
		List<String> walked = new ArrayList<>();
		FairQueue.ServiceOrder<String> order = this.queue.serviceOrder();
		for (FairQueue.Entry<String> entry = order.next(); entry != null; entry = order.next()) {
			walked.add(entry.item());
		}
		List<String> polled = new ArrayList<>();
		for (FairQueue.Entry<String> entry = this.queue.poll(); entry != null; entry = this.queue.poll()) {
			polled.add(entry.item());
		}
		assertThat(walked).hasSize(52).isEqualTo(polled);
		assertThat(empty.serviceOrder().next()).isNull();
	}

	@Test
	void takingOutOfTurnShouldServeThatEntryAndLeaveTheOthersInOrder() {
		add("a", 1, 4);
		add("b", 1, 4);
		FairQueue.ServiceOrder<String> order = this.queue.serviceOrder();
		List<String> walked = new ArrayList<>();
		for (FairQueue.Entry<String> entry = order.next(); entry != null; entry = order.next()) {
			walked.add(entry.item());
			// Serve every entry of tenant b, as a first-fit pass serves the ones that
			// fit.
			if (entry.tenant().equals("b")) {
				order.take();
				assertThat(entry.isQueued()).isFalse();
			}
		}
		assertThat(walked).containsExactly("a0", "b0", "a1", "b1", "a2", "b2", "a3", "b3");
		assertThat(this.queue.size()).isEqualTo(4);
		assertThat(this.queue.size("b")).isZero();
		assertThat(serveTenants(5)).containsExactly("a", "a", "a", "a");
	}

	@Test
	void aWalkShouldTakeOnlyTheEntryItStandsOn() {
		add("a", 1, 2);
		FairQueue.ServiceOrder<String> order = this.queue.serviceOrder();
		assertThatIllegalStateException().isThrownBy(order::take);
		order.next();
		order.take();
		assertThatIllegalStateException().isThrownBy(order::take);
		assertThat(this.queue.size()).isEqualTo(1);
	}

}
