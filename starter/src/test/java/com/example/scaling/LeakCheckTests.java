package com.example.scaling;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestContextManager;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.test.autoconfigure.OffloadTest;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The leak check that offload-test registers for every Spring test, driven through
 * Spring's test context as JUnit would drive it.
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
			.hasMessageContaining(
					"openAndForget left Offload work behind: device 0: 1 open session(s), 1 stream(s) lent")
			.hasMessageContaining("opened at session " + instance.session.id()
					+ " by com.example.scaling.LeakCheckTests$LeakyTests.openAndForget(");
		instance.session.close();
		assertThatCode(() -> manager.afterTestMethod(instance, method, null)).doesNotThrowAnyException();
		manager.afterTestClass();
	}

	@OffloadTest
	static class LeakyTests {

		@Autowired
		private DeviceRegistry registry;

		private OffloadSession session;

		void openAndForget() {
			this.session = this.registry.openSession(0);
			this.session.fill(this.session.allocate(16), (byte) 1);
		}

	}

}
