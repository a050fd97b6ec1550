package dev.offload.kernel;

/**
 * The kind of one kernel parameter, which launch arguments are checked against before
 * anything reaches the device.
 */
public enum ParamKind {

	/**
	 * A 32-bit integer ({@code int}, PTX {@code .u32 .s32 .b32}); takes an
	 * {@link Integer}.
	 */
	INT32,

	/**
	 * A 64-bit integer ({@code long}, PTX {@code .u64 .s64 .b64} when no signature says
	 * it is a pointer); takes a {@link Long} or a {@code DeviceBuffer}, because PTX does
	 * not tell pointers from 64-bit integers.
	 */
	INT64,

	/**
	 * A 32-bit float (PTX {@code .f32}); takes a {@link Float}.
	 */
	FLOAT32,

	/**
	 * A 64-bit float (PTX {@code .f64}); takes a {@link Double}.
	 */
	FLOAT64,

	/**
	 * A pointer to device memory; takes a {@code DeviceBuffer} of the same device.
	 */
	POINTER;

}
