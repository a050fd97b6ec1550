package dev.offload.spi;

import java.util.List;

import dev.offload.kernel.ParamKind;

/**
 * A kernel of a {@link BackendModule}, with the parameter list launches are checked
 * against.
 */
public interface BackendKernel {

	/**
	 * Returns the kernel's name (the PTX entry name on CUDA).
	 * @return the name
	 */
	String name();

	/**
	 * Returns the declared parameters, in order.
	 * @return the parameter kinds
	 */
	List<ParamKind> parameters();

}
