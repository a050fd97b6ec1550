package dev.offload;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

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

	@Test
	void isolatingWhenAlreadyCompositeShouldNotWrapAgain() {
		OffloadListener composite = CompositeOffloadListener.of(List.of(recording("a", new ArrayList<>())));
		assertThat(CompositeOffloadListener.isolating(composite)).isSameAs(composite);
		assertThat(CompositeOffloadListener.isolating(null)).isSameAs(OffloadListener.NONE);
	}

	@Test
	void isolatingWhenListenerThrowsShouldSwallowIt() {
		OffloadListener throwing = new OffloadListener() {

			@Override
			public void deviceFailed(Device device, Throwable cause) {
				throw new IllegalStateException("broken tracer");
			}

		};
		CompositeOffloadListener.isolating(throwing).deviceFailed(null, null);
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
