package dev.offload.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.OffloadListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link CompositeOffloadListener}.
 */
class CompositeOffloadListenerTests {

	@Test
	void ofWhenNoListenersShouldBeNone() {
		assertThat(CompositeOffloadListener.of(List.of())).isSameAs(OffloadListener.NONE);
	}

	@Test
	void callbacksShouldReachEveryListenerInOrder() {
		List<String> calls = new ArrayList<>();
		OffloadListener composite = CompositeOffloadListener.of(List.of(recording("a", calls), recording("b", calls)));
		composite.borrowTimedOut(null);
		assertThat(calls).containsExactly("a", "b");
	}

	@Test
	void callbacksWhenAListenerThrowsShouldStillReachTheNext() {
		List<String> calls = new ArrayList<>();
		OffloadListener throwing = new OffloadListener() {

			@Override
			public void borrowTimedOut(Device device) {
				throw new IllegalStateException("broken meter");
			}

		};
		CompositeOffloadListener.of(List.of(throwing, recording("b", calls))).borrowTimedOut(null);
		assertThat(calls).containsExactly("b");
	}

	private static OffloadListener recording(String name, List<String> calls) {
		return new OffloadListener() {

			@Override
			public void borrowTimedOut(Device device) {
				calls.add(name);
			}

		};
	}

}
