package dev.offload.blas;

import java.util.Map;

import dev.offload.LibraryStream;

/**
 * The host emulation's BLAS: each call runs in the stream's order on a worker of the host
 * device, on the buffers' host views, computed by EJML ({@link EjmlBlas}) in full
 * precision whatever the math mode. Results agree with cuBLAS's within rounding (the
 * order of a sum differs), not bit for bit.
 */
final class EmulatedBlas implements BlasHandle {

	static final String EJML_CLASS_NAME = "org.ejml.dense.row.CommonOps_FDRM";

	static final String EJML_DOUBLE_CLASS_NAME = "org.ejml.dense.row.CommonOps_DDRM";

	private static final EmulatedBlas INSTANCE = new EmulatedBlas();

	private EmulatedBlas() {
	}

	/**
	 * Returns the emulation, after checking that EJML is on the classpath.
	 * @throws BlasUnavailableException if it is not
	 */
	static EmulatedBlas open() {
		for (String name : new String[] { EJML_CLASS_NAME, EJML_DOUBLE_CLASS_NAME }) {
			try {
				Class.forName(name, false, EmulatedBlas.class.getClassLoader());
			}
			catch (ClassNotFoundException | LinkageError ex) {
				throw new BlasUnavailableException("EJML", Map.of("org.ejml:ejml-fdense and org.ejml:ejml-ddense",
						"not on the classpath (class " + name + "); the host emulation of BLAS computes with them"),
						false);
			}
		}
		return INSTANCE;
	}

	@Override
	public void enqueue(BlasCall call, MathMode mathMode, LibraryStream stream) {
		stream.call(call.routine(), () -> EjmlBlas.run(call));
	}

	@Override
	public void close() {
	}

	@Override
	public String toString() {
		return "EmulatedBlas[EJML]";
	}

}
