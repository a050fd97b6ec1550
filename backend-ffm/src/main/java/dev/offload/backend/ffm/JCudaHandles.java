package dev.offload.backend.ffm;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;

/**
 * Builds JCuda's handle objects ({@code jcuda.driver.CUstream}, {@code CUcontext},
 * {@code CUevent}, {@code CUdeviceptr}, {@code jcuda.runtime.cudaStream_t}, ...) around
 * raw addresses, for libraries that take JCuda handles (JCublas, JCufft). JCuda is not a
 * dependency: its classes are found by name, and an object is made with its public
 * constructor and its {@code NativePointerObject.nativePointer} field set, which is all
 * JCuda's natives read of a handle. Such an object owns nothing: dropping it frees
 * nothing.
 */
final class JCudaHandles {

	static final String NATIVE_POINTER_OBJECT = "jcuda.NativePointerObject";

	private JCudaHandles() {
	}

	/**
	 * Tells whether a type is one of JCuda's handle types.
	 * @param type a type
	 * @return {@code true} for a subclass of {@code jcuda.NativePointerObject}
	 */
	static boolean isJCudaType(Class<?> type) {
		for (Class<?> each = type; each != null; each = each.getSuperclass()) {
			if (NATIVE_POINTER_OBJECT.equals(each.getName())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Makes a JCuda handle of an address.
	 * @param <T> the handle's type
	 * @param type a concrete subclass of {@code jcuda.NativePointerObject} with a public
	 * constructor of no arguments
	 * @param address the native address
	 * @return the handle
	 * @throws IllegalArgumentException if the type cannot be made that way
	 */
	static <T> T wrap(Class<T> type, long address) {
		try {
			Constructor<T> constructor = type.getConstructor();
			T handle = constructor.newInstance();
			Field pointer = nativePointerField(type);
			pointer.setAccessible(true);
			pointer.setLong(handle, address);
			return handle;
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			throw new IllegalArgumentException("Cannot make a " + type.getName() + " of address 0x"
					+ Long.toHexString(address) + " (JCuda's handles need a public constructor without "
					+ "arguments and an accessible NativePointerObject.nativePointer): " + ex, ex);
		}
	}

	private static Field nativePointerField(Class<?> type) throws NoSuchFieldException {
		for (Class<?> each = type; each != null; each = each.getSuperclass()) {
			if (NATIVE_POINTER_OBJECT.equals(each.getName())) {
				return each.getDeclaredField("nativePointer");
			}
		}
		throw new NoSuchFieldException(type.getName() + " is no " + NATIVE_POINTER_OBJECT);
	}

}
