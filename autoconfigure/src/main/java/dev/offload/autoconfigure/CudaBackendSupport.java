package dev.offload.autoconfigure;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import org.springframework.util.ClassUtils;


import dev.offload.spi.Backend;

/**
 * The one place that reaches Offload's CUDA backend, {@value #BACKEND_CLASS_NAME}, which this module does not
 * compile against: it calls the backend's static {@code probe()} and its static {@code create()} (or public no-arg
 * constructor) by reflection.
 * <p>
 * Expected shape: {@code probe()} never throws and returns either a {@link Boolean} or an object with a boolean
 * {@code available()}/{@code isAvailable()}/{@code usable()}/{@code isUsable()} and a {@code reason()}/
 * {@code getReason()}/{@code message()} string. Once that class is on this module's classpath, these calls can be
 * made directly.
 */
final class CudaBackendSupport {

	/**
	 * JCuda's driver API class, which the CUDA backend needs.
	 */
	static final String DRIVER_CLASS_NAME = "jcuda.driver.JCudaDriver";

	/**
	 * Offload's CUDA backend.
	 */
	static final String BACKEND_CLASS_NAME = "dev.offload.backend.cuda.CudaBackend";

	private static final String[] USABLE_METHODS = { "available", "isAvailable", "usable", "isUsable" };

	private static final String[] REASON_METHODS = { "message", "getMessage", "reason", "getReason" };

	private final Class<?> backendClass;

	CudaBackendSupport(Class<?> backendClass) {
		this.backendClass = backendClass;
	}

	/**
	 * Loads the CUDA backend's class, if it and JCuda are present.
	 * @param classLoader the class loader to look in
	 * @return the support, or {@code null} if JCuda or the backend is not on the classpath
	 */
	static CudaBackendSupport load(ClassLoader classLoader) {
		if (!ClassUtils.isPresent(DRIVER_CLASS_NAME, classLoader)) {
			return null;
		}
		try {
			return new CudaBackendSupport(ClassUtils.forName(BACKEND_CLASS_NAME, classLoader));
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
	}

	/**
	 * Explains why {@link #load} found no CUDA backend.
	 * @param classLoader the class loader to look in
	 * @return which class is missing
	 */
	static String absenceReason(ClassLoader classLoader) {
		if (!ClassUtils.isPresent(DRIVER_CLASS_NAME, classLoader)) {
			return "JCuda (" + DRIVER_CLASS_NAME + ") is not on the classpath";
		}
		return "Offload's CUDA backend (" + BACKEND_CLASS_NAME + ") is not on the classpath";
	}

	/**
	 * Asks the backend whether CUDA is usable: JCuda's natives load, the driver initialises and a device exists.
	 * @return the answer, never an exception
	 */
	Availability probe() {
		Object result;
		try {
			result = invokeStatic("probe");
		}
		catch (Throwable ex) {
			return Availability.unusable(describe(ex));
		}
		if (result instanceof Boolean usable) {
			return usable ? Availability.USABLE : Availability.unusable("CudaBackend.probe() returned false");
		}
		if (result == null) {
			return Availability.unusable("CudaBackend.probe() returned null");
		}
		Boolean usable = call(result, USABLE_METHODS, Boolean.class);
		Object reason = call(result, REASON_METHODS, Object.class);
		if (usable == null) {
			return Availability.unusable("CudaBackend.probe() returned an unknown result: " + result);
		}
		return usable ? Availability.USABLE : Availability.unusable((reason != null) ? reason.toString() : "unknown");
	}

	/**
	 * Creates the CUDA backend.
	 * @return the backend
	 * @throws IllegalStateException with the backend's own error as the cause if it cannot be created
	 */
	Backend create() {
		try {
			if (findMethod(this.backendClass, "create") != null) {
				return (Backend) invokeStatic("create");
			}
			return (Backend) this.backendClass.getConstructor().newInstance();
		}
		catch (Throwable ex) {
			Throwable cause = (ex instanceof InvocationTargetException target) ? target.getTargetException() : ex;
			throw new IllegalStateException(describe(cause), cause);
		}
	}

	/**
	 * Counts the devices that the CUDA driver sees, as the backend will; 0 if the driver cannot tell.
	 * @return the number of devices
	 */
	int deviceCount() {
		try {
			// The backend's probe caches its answer, so this loads JCuda's natives at most once per process.
			Object result = invokeStatic("probe");
			Integer count = (result != null) ? call(result, new String[] { "deviceCount" }, Integer.class) : null;
			return (count != null) ? count : 0;
		}
		catch (Throwable ex) {
			return 0;
		}
	}

	private Object invokeStatic(String name) throws Throwable {
		Method method = findMethod(this.backendClass, name);
		if (method == null || !Modifier.isStatic(method.getModifiers())) {
			throw new NoSuchMethodException(BACKEND_CLASS_NAME + " has no static " + name + "()");
		}
		try {
			return method.invoke(null);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	private static <T> T call(Object target, String[] names, Class<T> type) {
		for (String name : names) {
			Method method = findMethod(target.getClass(), name);
			if (method == null) {
				continue;
			}
			try {
				method.setAccessible(true);
				Object value = method.invoke(target);
				if (type.isInstance(value)) {
					return type.cast(value);
				}
			}
			catch (ReflectiveOperationException | RuntimeException ex) {
				// Try the next name.
			}
		}
		return null;
	}

	private static Method findMethod(Class<?> type, String name) {
		try {
			return type.getMethod(name);
		}
		catch (NoSuchMethodException ex) {
			return null;
		}
	}

	private static String describe(Throwable ex) {
		String message = ex.getMessage();
		return ex.getClass().getSimpleName() + ((message != null) ? ": " + message : "");
	}

	/**
	 * Whether CUDA is usable, and why not.
	 *
	 * @param usable whether the backend can be created
	 * @param reason why it cannot, or {@code null}
	 */
	record Availability(boolean usable, String reason) {

		static final Availability USABLE = new Availability(true, null);

		static Availability unusable(String reason) {
			return new Availability(false, reason);
		}

	}

}
