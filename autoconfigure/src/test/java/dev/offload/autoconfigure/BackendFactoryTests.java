package dev.offload.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.offload.autoconfigure.OffloadProperties.BackendType;
import dev.offload.autoconfigure.OffloadProperties.CudaBinding;
import dev.offload.backend.host.HostBackend;
import dev.offload.compile.KernelCache;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendAvailability;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendProvider;
import dev.offload.spi.BackendSelection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link BackendFactory}, with fake providers of the CUDA backend.
 */
@ExtendWith(OutputCaptureExtension.class)
class BackendFactoryTests {

	private static final BackendAvailability USABLE = BackendAvailability.available(2, "2 CUDA device(s)");

	private static final BackendAvailability NO_DEVICE = BackendAvailability
		.unavailable("cuInit failed: CUDA_ERROR_NO_DEVICE");

	@Test
	void backendWhenAutoAndCudaUsableShouldBeCuda(CapturedOutput output) {
		BackendFactory factory = factory(BackendType.AUTO, new FakeCuda(() -> USABLE, FakeCudaBackend::new));
		BackendSelection selection = factory.select();
		assertThat(selection.backend()).isEqualTo("cuda");
		assertThat(selection.deviceCount()).isEqualTo(2);
		assertThat(factory.create(selection).name()).isEqualTo("cuda");
		assertThat(output).doesNotContain("Offload uses the host backend");
	}

	@Test
	void backendWhenAutoAndNoGpuShouldBeHostAndSayWhy(CapturedOutput output) {
		BackendFactory factory = factory(BackendType.AUTO, new FakeCuda(() -> NO_DEVICE, FakeCudaBackend::new));
		BackendSelection selection = factory.select();
		assertThat(selection.fallback()).isTrue();
		assertThat(selection.reason()).isEqualTo("cuInit failed: CUDA_ERROR_NO_DEVICE");
		Backend backend = factory.create(selection);
		assertThat(backend).isInstanceOf(HostBackend.class);
		assertThat(output).containsOnlyOnce("Offload uses the host backend (devices emulated on the CPU): cuInit "
				+ "failed: CUDA_ERROR_NO_DEVICE");
		backend.close();
	}

	@Test
	void backendWhenAutoAndCudaFailsToStartShouldFailRatherThanContradictTheSelection(CapturedOutput output) {
		BackendFactory factory = factory(BackendType.AUTO,
				new FakeCuda(() -> USABLE, BackendFactoryTests::outOfMemory));
		BackendSelection selection = factory.select();
		assertThat(selection.backend()).isEqualTo("cuda");
		assertThatExceptionOfType(InvalidOffloadConfigurationException.class)
			.isThrownBy(() -> factory.create(selection))
			.withMessage("Invalid value 'auto' for 'offload.backend': CUDA is not usable: the CUDA backend could not "
					+ "start: IllegalStateException: cuDevicePrimaryCtxRetain failed: CUDA_ERROR_OUT_OF_MEMORY")
			.withCauseInstanceOf(IllegalStateException.class)
			.satisfies((ex) -> assertThat(ex.getAction()).endsWith("set 'offload.backend' to 'host'."));
		assertThat(output).doesNotContain("Offload uses the host backend");
	}

	@Test
	void backendWhenCudaAndNoGpuShouldFailNamingTheReason() {
		BackendFactory factory = factory(BackendType.CUDA, new FakeCuda(() -> NO_DEVICE, FakeCudaBackend::new));
		assertThatExceptionOfType(InvalidOffloadConfigurationException.class)
			.isThrownBy(() -> factory.create(factory.select()))
			.withMessage("Invalid value 'cuda' for 'offload.backend': CUDA is not usable: cuInit failed: "
					+ "CUDA_ERROR_NO_DEVICE")
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("offload.backend"));
	}

	@Test
	void backendWhenCudaAndProbeThrowsShouldFailNamingTheReason() {
		BackendFactory factory = factory(BackendType.CUDA, new FakeCuda(() -> {
			throw new UnsatisfiedLinkError("no JCudaDriver-12.6.0-linux-x86_64 in java.library.path");
		}, FakeCudaBackend::new));
		assertThatExceptionOfType(InvalidOffloadConfigurationException.class)
			.isThrownBy(() -> factory.create(factory.select()))
			.withMessageContaining("CUDA is not usable: UnsatisfiedLinkError: no JCudaDriver-12.6.0-linux-x86_64");
	}

	@Test
	void backendWhenCudaFailsToStartShouldFailWithTheCause() {
		BackendFactory factory = factory(BackendType.CUDA,
				new FakeCuda(() -> USABLE, BackendFactoryTests::outOfMemory));
		assertThatExceptionOfType(InvalidOffloadConfigurationException.class)
			.isThrownBy(() -> factory.create(factory.select()))
			.withMessageContaining("CUDA_ERROR_OUT_OF_MEMORY")
			.withCauseInstanceOf(IllegalStateException.class);
	}

	@Test
	void backendWhenCudaAndJCudaNotOnClasspathShouldFailNamingTheMissingClass() {
		OffloadProperties properties = new OffloadProperties();
		properties.setBackend(BackendType.CUDA);
		ClassLoader withoutJCuda = new ClassLoader(null) {
		};
		BackendFactory factory = BackendFactory.of(properties, withoutJCuda, null,
				BackendFactoryTests::unusedKernelCache);
		assertThatExceptionOfType(InvalidOffloadConfigurationException.class)
			.isThrownBy(() -> factory.create(factory.select()))
			.withMessageEndingWith("CUDA is not usable: JCuda (jcuda.driver.JCudaDriver) is not on the classpath");
	}

	@Test
	void selectWhenHostShouldNotProbeCuda() {
		FakeCuda cuda = new FakeCuda(() -> USABLE, FakeCudaBackend::new);
		OffloadProperties properties = new OffloadProperties();
		properties.setBackend(BackendType.HOST);
		properties.getHost().setDeviceCount(3);
		BackendSelection selection = new BackendFactory(properties, cuda, null).select();
		assertThat(selection.backend()).isEqualTo("host");
		assertThat(selection.deviceCount()).isEqualTo(3);
		assertThat(cuda.probes).hasValue(0);
	}

	@Test
	void ofWhenHostShouldNotLoadJCuda() {
		OffloadProperties properties = new OffloadProperties();
		properties.setBackend(BackendType.HOST);
		List<String> requested = new CopyOnWriteArrayList<>();
		ClassLoader recording = new ClassLoader(getClass().getClassLoader()) {

			@Override
			protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
				requested.add(name);
				return super.loadClass(name, resolve);
			}

		};
		BackendFactory factory = BackendFactory.of(properties, recording, null, BackendFactoryTests::unusedKernelCache);
		Backend backend = factory.create(factory.select());
		assertThat(backend).isInstanceOf(HostBackend.class);
		assertThat(requested).noneMatch((name) -> name.startsWith("jcuda."));
		backend.close();
	}

	@Test
	void selectWhenAutoOnJava25AndFfmUsableShouldTakeFfmAndSayWhy(CapturedOutput output) {
		FakeCuda jcuda = new FakeCuda("jcuda", () -> USABLE, FakeCudaBackend::new);
		FakeCuda ffm = new FakeCuda("ffm", () -> USABLE, FakeCudaBackend::new);
		BackendFactory factory = factory(BackendType.AUTO, CudaBinding.AUTO, jcuda, ffm, 25);

		BackendSelection selection = factory.select();

		assertThat(selection.backend()).isEqualTo("cuda");
		assertThat(selection.binding()).isEqualTo("ffm");
		assertThat(selection.reason()).isEqualTo("FFM binding (auto on Java 25): 2 CUDA device(s)");
		assertThat(jcuda.probes).as("JCuda is not probed").hasValue(0);
		factory.create(selection);
		assertThat(ffm.creations).hasValue(1);
		assertThat(output).containsOnlyOnce(
				"Offload uses the CUDA backend through the FFM binding (auto on Java 25): 2 CUDA device(s)");
	}

	@Test
	void selectWhenAutoOnJava17ShouldTakeJCudaWithoutProbingFfm() {
		FakeCuda jcuda = new FakeCuda("jcuda", () -> USABLE, FakeCudaBackend::new);
		FakeCuda ffm = new FakeCuda("ffm", () -> USABLE, FakeCudaBackend::new);

		BackendSelection selection = factory(BackendType.AUTO, CudaBinding.AUTO, jcuda, ffm, 17).select();

		assertThat(selection.binding()).isEqualTo("jcuda");
		assertThat(selection.reason())
			.isEqualTo("JCuda binding (auto on Java 17; the FFM binding needs Java 22): 2 CUDA device(s)");
		assertThat(ffm.probes).hasValue(0);
	}

	@Test
	void selectWhenAutoOnJava25AndFfmUnavailableShouldTakeJCudaSayingWhyNotFfm() {
		FakeCuda jcuda = new FakeCuda("jcuda", () -> USABLE, FakeCudaBackend::new);
		FakeCuda ffm = new FakeCuda("ffm", () -> BackendAvailability.unavailable("native access denied"),
				FakeCudaBackend::new);

		BackendSelection selection = factory(BackendType.CUDA, CudaBinding.AUTO, jcuda, ffm, 25).select();

		assertThat(selection.binding()).isEqualTo("jcuda");
		assertThat(selection.reason())
			.isEqualTo("JCuda binding (auto on Java 25, FFM binding: native access denied): 2 CUDA device(s)");
	}

	@Test
	void selectWhenAutoAndNoBindingFindsAGpuShouldFallBackNamingBoth() {
		FakeCuda jcuda = new FakeCuda("jcuda", () -> NO_DEVICE, FakeCudaBackend::new);
		FakeCuda ffm = new FakeCuda("ffm", () -> BackendAvailability.unavailable("libcuda.so.1 could not be loaded"),
				FakeCudaBackend::new);

		BackendSelection selection = factory(BackendType.AUTO, CudaBinding.AUTO, jcuda, ffm, 25).select();

		assertThat(selection.backend()).isEqualTo("host");
		assertThat(selection.fallback()).isTrue();
		assertThat(selection.reason()).isEqualTo("FFM binding: libcuda.so.1 could not be loaded; JCuda binding: "
				+ "cuInit failed: CUDA_ERROR_NO_DEVICE");
	}

	@Test
	void selectWhenBindingIsFfmShouldNeverTakeJCuda() {
		FakeCuda jcuda = new FakeCuda("jcuda", () -> USABLE, FakeCudaBackend::new);
		FakeCuda ffm = new FakeCuda("ffm", () -> BackendAvailability.unavailable("libcuda.so.1 could not be loaded"),
				FakeCudaBackend::new);
		BackendFactory factory = factory(BackendType.CUDA, CudaBinding.FFM, jcuda, ffm, 25);

		assertThatExceptionOfType(InvalidOffloadConfigurationException.class)
			.isThrownBy(() -> factory.create(factory.select()))
			.withMessage("Invalid value 'cuda' for 'offload.backend': CUDA is not usable: libcuda.so.1 could not be "
					+ "loaded");
		assertThat(jcuda.probes).hasValue(0);
	}

	@Test
	void selectWhenBindingIsJCudaOnJava25ShouldTakeJCudaAndSaySo() {
		FakeCuda jcuda = new FakeCuda("jcuda", () -> USABLE, FakeCudaBackend::new);
		FakeCuda ffm = new FakeCuda("ffm", () -> USABLE, FakeCudaBackend::new);

		BackendSelection selection = factory(BackendType.AUTO, CudaBinding.JCUDA, jcuda, ffm, 25).select();

		assertThat(selection.binding()).isEqualTo("jcuda");
		assertThat(selection.reason()).isEqualTo("JCuda binding ('offload.cuda.binding' is 'jcuda'): 2 CUDA device(s)");
		assertThat(ffm.probes).hasValue(0);
	}

	@Test
	void ffmProviderOnJava17ShouldNotLoadTheFfmClass() {
		List<String> requested = new CopyOnWriteArrayList<>();
		ClassLoader recording = new ClassLoader(getClass().getClassLoader()) {

			@Override
			protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
				requested.add(name);
				return super.loadClass(name, resolve);
			}

		};

		BackendProvider ffm = BackendFactory.ffmProvider(recording, BackendFactoryTests::unusedKernelCache, 17);

		assertThat(ffm.binding()).isEqualTo("ffm");
		assertThat(ffm.probe().message()).isEqualTo("the FFM binding needs Java 22 or later; this is Java 17");
		assertThat(requested).noneMatch((name) -> name.startsWith("dev.offload.backend.ffm"));
	}

	@Test
	void ffmProviderWhenModuleMissingShouldSaySo() {
		ClassLoader withoutFfm = new ClassLoader(null) {
		};

		BackendProvider ffm = BackendFactory.ffmProvider(withoutFfm, BackendFactoryTests::unusedKernelCache, 25);

		assertThat(ffm.probe().message()).isEqualTo("the FFM binding (offload-backend-ffm, "
				+ "dev.offload.backend.ffm.FfmBackendProvider) is not on the classpath");
	}

	private static BackendFactory factory(BackendType type, CudaBinding binding, BackendProvider jcuda,
			BackendProvider ffm, int javaVersion) {
		OffloadProperties properties = new OffloadProperties();
		properties.setBackend(type);
		properties.getCuda().setBinding(binding);
		return new BackendFactory(properties, jcuda, ffm, javaVersion, null);
	}

	private static BackendFactory factory(BackendType type, BackendProvider cuda) {
		OffloadProperties properties = new OffloadProperties();
		properties.setBackend(type);
		return new BackendFactory(properties, cuda, null);
	}

	private static KernelCache unusedKernelCache() {
		throw new AssertionError("no CUDA backend is created here");
	}

	private static Backend outOfMemory() {
		throw new IllegalStateException("cuDevicePrimaryCtxRetain failed: CUDA_ERROR_OUT_OF_MEMORY");
	}

	/**
	 * A provider of the CUDA backend whose probe and creation the test decides, counting
	 * probes.
	 */
	static final class FakeCuda implements BackendProvider {

		final AtomicInteger probes = new AtomicInteger();

		final AtomicInteger creations = new AtomicInteger();

		private final String binding;

		private final Supplier<BackendAvailability> probe;

		private final Supplier<Backend> create;

		FakeCuda(Supplier<BackendAvailability> probe, Supplier<Backend> create) {
			this("cuda", probe, create);
		}

		FakeCuda(String binding, Supplier<BackendAvailability> probe, Supplier<Backend> create) {
			this.binding = binding;
			this.probe = probe;
			this.create = create;
		}

		@Override
		public String name() {
			return "cuda";
		}

		@Override
		public String binding() {
			return this.binding;
		}

		@Override
		public BackendAvailability probe() {
			this.probes.incrementAndGet();
			return this.probe.get();
		}

		@Override
		public Backend create() {
			this.creations.incrementAndGet();
			return this.create.get();
		}

	}

	/**
	 * A backend that names itself {@code cuda} and has no devices.
	 */
	static final class FakeCudaBackend implements Backend {

		@Override
		public String name() {
			return "cuda";
		}

		@Override
		public List<BackendDevice> devices() {
			return List.of();
		}

		@Override
		public void close() {
		}

	}

}
