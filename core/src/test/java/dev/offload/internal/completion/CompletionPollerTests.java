package dev.offload.internal.completion;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The completion thread's sweep: oldest first, stopping early behind work not done, and
 * still finishing work that is done out of order.
 */
class CompletionPollerTests {

	@Test
	void workDoneBehindManyUnfinishedTasksShouldStillBeSeenDone() throws Exception {
		CompletionPoller poller = new CompletionPoller(0, Runnable::run);
		try {
			AtomicBoolean released = new AtomicBoolean();
			AtomicInteger polls = new AtomicInteger();
			CountDownLatch lastDone = new CountDownLatch(1);
			CountDownLatch allDone = new CountDownLatch(10 * CompletionTuning.NOT_DONE_RUN + 1);
			List<CompletionPoller.Task> tasks = new ArrayList<>();
			for (int i = 0; i < 10 * CompletionTuning.NOT_DONE_RUN; i++) {
				tasks.add(new Gate(released::get, polls, allDone));
			}
			// Done at once, behind ten runs of unfinished tasks.
			tasks.add(new Gate(() -> true, polls, new CountDownLatch(0)) {

				@Override
				public boolean poll() {
					lastDone.countDown();
					allDone.countDown();
					return true;
				}

			});
			tasks.forEach(poller::submit);
			assertThat(lastDone.await(1, TimeUnit.MINUTES)).isTrue();
			released.set(true);
			assertThat(allDone.await(1, TimeUnit.MINUTES)).isTrue();
			// Counted down in the last poll, just before the thread counts the task done.
			Awaitility.await().atMost(1, TimeUnit.MINUTES).until(() -> poller.outstanding() == 0);
		}
		finally {
			poller.stop();
		}
	}

	private static class Gate implements CompletionPoller.Task {

		private final java.util.function.BooleanSupplier open;

		private final AtomicInteger polls;

		private final CountDownLatch done;

		Gate(java.util.function.BooleanSupplier open, AtomicInteger polls, CountDownLatch done) {
			this.open = open;
			this.polls = polls;
			this.done = done;
		}

		@Override
		public boolean poll() {
			this.polls.incrementAndGet();
			if (this.open.getAsBoolean()) {
				this.done.countDown();
				return true;
			}
			return false;
		}

		@Override
		public void abandon(String reason) {
		}

	}

}
