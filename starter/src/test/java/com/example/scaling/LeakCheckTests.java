package com.example.scaling;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestContextManager;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.kernel.LaunchConfig;
import dev.offload.template.OffloadTemplate;
import dev.offload.test.autoconfigure.OffloadTest;
import dev.offload.test.kernel.Gate;
import dev.offload.test.kernel.TestKernels;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The leak check that offload-test registers for every Spring test, driven through
 * Spring's test context as JUnit would drive it: it reports exactly the sessions that a
 * test opened and left open once their work ended.
 */
class LeakCheckTests {

	@Test
	void afterTestMethodWhenASessionIsLeftOpenShouldFailNamingTheOpener() throws Exception {
		TestContextManager manager = new TestContextManager(LeakyTests.class);
		LeakyTests instance = new LeakyTests();
		manager.prepareTestInstance(instance);
		Method method = LeakyTests.class.getDeclaredMethod("openAndForget");
		manager.beforeTestMethod(instance, method);
		instance.openAndForget();
		assertThatThrownBy(() -> manager.afterTestMethod(instance, method, null)).isInstanceOf(AssertionError.class)
			.hasMessageContaining("openAndForget left Offload work behind: 1 session(s) still open")
			.hasMessageContaining("session " + instance.session.id() + " on device 0, opened by "
					+ "com.example.scaling.LeakCheckTests$LeakyTests.openAndForget(");
		instance.session.close();
		manager.afterTestClass();
	}

	@Test
	void afterTestMethodWhenTheTestBeforeLeakedShouldNotBlameTheNextTest() throws Exception {
		TestContextManager manager = new TestContextManager(LeakyTests.class);
		LeakyTests instance = new LeakyTests();
		manager.prepareTestInstance(instance);
		Method leaky = LeakyTests.class.getDeclaredMethod("openAndForget");
		manager.beforeTestMethod(instance, leaky);
		instance.openAndForget();
		assertThatThrownBy(() -> manager.afterTestMethod(instance, leaky, null)).isInstanceOf(AssertionError.class);
		Method clean = LeakyTests.class.getDeclaredMethod("openAndClose");
		manager.beforeTestMethod(instance, clean);
		instance.openAndClose();
		assertThatCode(() -> manager.afterTestMethod(instance, clean, null)).doesNotThrowAnyException();
		instance.session.close();
		manager.afterTestClass();
	}

	@Test
	void afterTestMethodWhenTheTestDoesNotAwaitItsFutureShouldWaitForItsWorkToEnd() throws Exception {
		TestContextManager manager = new TestContextManager(LeakyTests.class);
		LeakyTests instance = new LeakyTests();
		manager.prepareTestInstance(instance);
		Method method = LeakyTests.class.getDeclaredMethod("releaseWithoutAwaiting");
		manager.beforeTestMethod(instance, method);
		instance.releaseWithoutAwaiting();
		assertThatCode(() -> manager.afterTestMethod(instance, method, null)).doesNotThrowAnyException();
		instance.pending.join();
		manager.afterTestClass();
	}

	@OffloadTest
	static class LeakyTests {

		@Autowired
		private DeviceRegistry registry;

		private OffloadSession session;

		private CompletableFuture<String> pending;

		void openAndForget() {
			this.session = this.registry.openSession(0);
			this.session.fill(this.session.allocate(16), (byte) 1);
		}

		void openAndClose() {
			try (OffloadSession own = this.registry.openSession(0)) {
				own.fill(own.allocate(16), (byte) 2);
			}
		}

		void releaseWithoutAwaiting() {
			try (Gate gate = Gate.create()) {
				this.pending = new OffloadTemplate(this.registry).submit((session) -> {
					gate.launch(session);
					// Work that outlasts the test method, so that the check sees it
					// running.
					session.launch(TestKernels.SLOW, LaunchConfig.of(1, 1), 500);
					return "done";
				});
			}
		}

	}

}
