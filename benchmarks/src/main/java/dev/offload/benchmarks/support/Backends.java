package dev.offload.benchmarks.support;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import dev.offload.backend.host.HostBackend;
import dev.offload.spi.Backend;

/**
 * Makes the {@link Backend} a benchmark runs on, by name. The CUDA backend is reached by
 * reflection only, so that the benchmarks build, and run on the host backend, where it or
 * JCuda is missing.
 */
public final class Backends {

	static final String CUDA_BACKEND_CLASS = "dev.offload.backend.cuda.CudaBackend";

	/** The CUDA backend through the FFM binding (Java 22+, offload-backend-ffm). */
	static final String FFM_BACKEND_CLASS = "dev.offload.backend.ffm.FfmBackend";

	private Backends() {
	}

	/**
	 * Creates a backend.
	 * @param name {@code host}, {@code cuda} (JCuda) or {@code ffm}
	 * @param hostWorkers the workers per host device, or 0 for the host backend's default
	 * @return the backend
	 */
	public static Backend create(String name, int hostWorkers) {
		return create(name, hostWorkers, 1);
	}

	/**
	 * Creates a backend.
	 * @param name {@code host}, {@code cuda} (JCuda) or {@code ffm}
	 * @param hostWorkers the workers per host device, or 0 for the host backend's default
	 * @param hostDevices the devices the host backend emulates (CUDA has the machine's)
	 * @return the backend
	 */
	public static Backend create(String name, int hostWorkers, int hostDevices) {
		return switch (name) {
			case "host" -> host(hostWorkers, hostDevices);
			case "cuda" -> reflective(CUDA_BACKEND_CLASS);
			case "ffm" -> reflective(FFM_BACKEND_CLASS);
			default -> throw new IllegalArgumentException("Unknown backend '" + name + "'; use host, cuda or ffm");
		};
	}

	private static Backend host(int workers, int devices) {
		HostBackend.Builder builder = HostBackend.builder().deviceCount(devices);
		if (workers > 0) {
			builder.workersPerDevice(workers);
		}
		return builder.build();
	}

	/**
	 * Builds a backend class found by name through the first of: a static
	 * {@code builder()} whose result has {@code build()}, a static {@code create()}, a
	 * public constructor without arguments.
	 * @param className the backend's class, e.g. {@value #CUDA_BACKEND_CLASS}
	 * @return the backend
	 */
	static Backend reflective(String className) {
		Class<?> type;
		try {
			type = Class.forName(className);
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException(
					className + " is not on the class path: this build of offload-core has " + "no such backend", ex);
		}
		try {
			Method builder = staticMethod(type, "builder");
			if (builder != null) {
				Object instance = builder.invoke(null);
				return (Backend) builder.getReturnType().getMethod("build").invoke(instance);
			}
			Method create = staticMethod(type, "create");
			if (create != null) {
				return (Backend) create.invoke(null);
			}
			return (Backend) type.getConstructor().newInstance();
		}
		catch (InvocationTargetException ex) {
			Throwable cause = ex.getCause();
			throw (cause instanceof RuntimeException runtime) ? runtime
					: new IllegalStateException("Could not create the backend " + className, cause);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Could not create the backend: " + className
					+ " has no builder(), create() or public no-argument constructor", ex);
		}
	}

	private static Method staticMethod(Class<?> type, String name) {
		try {
			Method method = type.getMethod(name);
			return Modifier.isStatic(method.getModifiers()) ? method : null;
		}
		catch (NoSuchMethodException ex) {
			return null;
		}
	}

}
