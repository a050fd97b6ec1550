package dev.offload.blas;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.blas.CublasBinding;

/**
 * The JNA binding of cuBLAS (the JCuda backend's) against the fake library.
 */
class JnaCublasTests extends CublasBindingContract {

	@Override
	protected CublasBinding.@Nullable Loader backendLoader() {
		return null;
	}

}
