package dev.offload.benchmarks.support;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.benchmarks.jmh.FreeBackend;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class BackendsTests {

	@Test
	void createWhenHostShouldUseTheWorkersGiven() {
		try (Backend backend = Backends.create("host", 3)) {
			assertThat(backend).isInstanceOf(HostBackend.class);
			assertThat(backend.devices().get(0).info().multiprocessorCount()).isEqualTo(3);
		}
	}

	@Test
	void createWhenUnknownShouldNameIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> Backends.create("opencl", 0))
			.withMessageContaining("Unknown backend 'opencl'");
	}

	@Test
	void reflectiveWhenTheClassHasABuilderShouldBuildIt() {
		assertThat(Backends.reflective(BuiltBackend.class.getName())).isInstanceOf(BuiltBackend.class);
	}

	@Test
	void reflectiveWhenTheClassHasCreateShouldCallIt() {
		assertThat(Backends.reflective(CreatedBackend.class.getName())).isInstanceOf(CreatedBackend.class);
	}

	@Test
	void reflectiveWhenTheClassHasOnlyAConstructorShouldCallIt() {
		assertThat(Backends.reflective(ConstructedBackend.class.getName())).isInstanceOf(ConstructedBackend.class);
	}

	@Test
	void reflectiveWhenTheClassIsMissingShouldSaySo() {
		assertThatIllegalStateException().isThrownBy(() -> Backends.reflective(Backends.CUDA_BACKEND_CLASS + "X"))
			.withMessageContaining("is not on the class path");
	}

	/**
	 * A backend made by its builder.
	 */
	public static final class BuiltBackend extends DelegatingBackend {

		private BuiltBackend() {
		}

		/**
		 * Starts a builder.
		 * @return the builder
		 */
		public static Builder builder() {
			return new Builder();
		}

		/**
		 * Builds a {@link BuiltBackend}.
		 */
		public static final class Builder {

			/**
			 * Builds the backend.
			 * @return the backend
			 */
			public BuiltBackend build() {
				return new BuiltBackend();
			}

		}

	}

	/**
	 * A backend made by a factory method.
	 */
	public static final class CreatedBackend extends DelegatingBackend {

		private CreatedBackend() {
		}

		/**
		 * Creates the backend.
		 * @return the backend
		 */
		public static CreatedBackend create() {
			return new CreatedBackend();
		}

	}

	/**
	 * A backend made by its constructor.
	 */
	public static final class ConstructedBackend extends DelegatingBackend {

	}

	abstract static class DelegatingBackend implements Backend {

		private final Backend delegate = new FreeBackend();

		@Override
		public String name() {
			return "test";
		}

		@Override
		public List<BackendDevice> devices() {
			return this.delegate.devices();
		}

		@Override
		public void close() {
		}

	}

}
