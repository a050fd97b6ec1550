package dev.offload;

import java.util.Collection;
import java.util.List;

/**
 * A module has no kernel of the requested name; the message lists the kernels it has.
 */
public class NoSuchKernelException extends OffloadException {

	/**
	 * Creates an exception.
	 * @param module the module's name
	 * @param kernel the kernel asked for
	 * @param available the kernels the module has
	 */
	public NoSuchKernelException(String module, String kernel, Collection<String> available) {
		super("Module '" + module + "' has no kernel '" + kernel + "'; its kernels are " + List.copyOf(available));
	}

}
