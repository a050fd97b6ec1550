package dev.offload;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Session ids stay unique when many threads open sessions at once, each counting on its
 * stripe.
 */
class SessionIdsTests {

	@Test
	void nextWhenManyThreadsTakeIdsShouldNeverRepeatOne() throws Exception {
		Set<Long> ids = ConcurrentHashMap.newKeySet();
		Thread[] threads = new Thread[200];
		for (int t = 0; t < threads.length; t++) {
			threads[t] = new Thread(() -> {
				for (int i = 0; i < 500; i++) {
					ids.add(SessionIds.next());
				}
			});
			threads[t].start();
		}
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(ids).hasSize(200 * 500).allMatch((id) -> id > 0);
	}

}
