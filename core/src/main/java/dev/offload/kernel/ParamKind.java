package dev.offload;

/**
 * The kind of one kernel parameter, which launch arguments are checked against before anything reaches the device.
 */
public enum ParamKind {

	/**
	 * A 32-bit integer ({@code int}, PTX {@code .u32 .s32 .b32}); takes an {@link Integer}.
	 */
	INT32(Integer.class),

	/**
	 * A 64-bit integer ({@code long}, PTX {@code .u64 .s64 .b64} when no signature says it is a pointer); takes a
	 * {@link Long} or a {@link DeviceBuffer}, because PTX does not tell pointers from 64-bit integers.
	 */
	INT64(Long.class),

	/**
	 * A 32-bit float (PTX {@code .f32}); takes a {@link Float}.
	 */
	FLOAT32(Float.class),

	/**
	 * A 64-bit float (PTX {@code .f64}); takes a {@link Double}.
	 */
	FLOAT64(Double.class),

	/**
	 * A pointer to device memory; takes a {@link DeviceBuffer} of the same device.
	 */
	POINTER(DeviceBuffer.class);

	private final Class<?> argumentType;

	ParamKind(Class<?> argumentType) {
		this.argumentType = argumentType;
	}

	/**
	 * Returns the Java type a launch passes for this parameter.
	 * @return the argument type
	 */
	public Class<?> argumentType() {
		return this.argumentType;
	}

	/**
	 * Tells whether {@code argument} fits this parameter.
	 * @param argument a launch argument
	 * @return {@code true} if it can be passed
	 */
	public boolean accepts(Object argument) {
		return this.argumentType.isInstance(argument) || (this == INT64 && argument instanceof DeviceBuffer);
	}

}
