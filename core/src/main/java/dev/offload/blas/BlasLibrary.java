package dev.offload.blas;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.offload.Device;
import dev.offload.LibraryStatistics;
import dev.offload.LibraryStream;
import dev.offload.OffloadSession;
import dev.offload.StreamLibrary;
import dev.offload.internal.blas.CublasBinding;

/**
 * cuBLAS as Offload runs it: where the library is, how much workspace each handle takes
 * from the device's memory, and the math mode calls use unless they ask for another. Each
 * pooled stream that runs a BLAS call keeps a handle of this library (see
 * {@link StreamLibrary}); keep one instance per configuration (the
 * {@linkplain #standard() standard} one, or a bean), since handles are keyed by it.
 * <p>
 * On a GPU backend the handle is cuBLAS's, loaded by soname ({@code libcublas.so.13},
 * then {@code libcublas.so.12}) or from the configured path through the CUDA backend's
 * binding: the foreign function API with the FFM backend, JNA with JCuda's; on the host
 * backend the calls run on the CPU with EJML, so that the same code is tested without a
 * GPU.
 */
public final class BlasLibrary {

	/**
	 * The workspace a handle takes by default: 4 MiB, cuBLAS's recommendation before
	 * Hopper (it recommends 32 MiB on Hopper and later, which large GEMMs may use).
	 */
	public static final long DEFAULT_WORKSPACE_BYTES = 4L << 20;

	private static final BlasLibrary STANDARD = builder().build();

	private final @Nullable String libraryPath;

	private final long workspaceBytes;

	private final MathMode mathMode;

	private final Streams streams = new Streams();

	private BlasLibrary(Builder builder) {
		this.libraryPath = builder.libraryPath;
		this.workspaceBytes = builder.workspaceBytes;
		this.mathMode = builder.mathMode;
	}

	/**
	 * Returns the library with the defaults: cuBLAS by soname, 4 MiB of workspace per
	 * handle, {@link MathMode#DEFAULT}.
	 * @return the shared standard library
	 */
	public static BlasLibrary standard() {
		return STANDARD;
	}

	/**
	 * Returns a builder, with the defaults of {@link #standard()}.
	 * @return the builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Returns the BLAS operations of a session, on its stream and device buffers.
	 * @param session an open session
	 * @return the operations, with this library's math mode
	 */
	public Blas on(OffloadSession session) {
		if (session == null) {
			throw new IllegalArgumentException("session must not be null");
		}
		return new Blas(session, this, this.mathMode);
	}

	/**
	 * Returns what this library holds and did on a device: handles created and closed,
	 * workspace, calls.
	 * @param device the device
	 * @return the statistics
	 */
	public LibraryStatistics statistics(Device device) {
		if (device == null) {
			throw new IllegalArgumentException("device must not be null");
		}
		return device.libraryStatistics(this.streams);
	}

	/**
	 * Returns the configured path of cuBLAS.
	 * @return the path, or {@code null} when the sonames are searched
	 */
	public @Nullable String libraryPath() {
		return this.libraryPath;
	}

	/**
	 * Returns the workspace each handle takes from its device's memory.
	 * @return the bytes; 0 for none
	 */
	public long workspaceBytes() {
		return this.workspaceBytes;
	}

	/**
	 * Returns the math mode of calls that do not ask for another.
	 * @return the mode
	 */
	public MathMode mathMode() {
		return this.mathMode;
	}

	StreamLibrary<BlasHandle> streams() {
		return this.streams;
	}

	@Override
	public String toString() {
		return "BlasLibrary["
				+ ((this.libraryPath != null) ? this.libraryPath : String.join(", ", CublasLoader.SONAMES))
				+ ", workspace " + this.workspaceBytes + " bytes, " + this.mathMode + "]";
	}

	/**
	 * The handles this library keeps on pooled streams.
	 */
	private final class Streams implements StreamLibrary<BlasHandle> {

		@Override
		public String name() {
			return "blas";
		}

		@Override
		public BlasHandle open(LibraryStream stream) {
			if (!stream.isNative()) {
				return EmulatedBlas.open();
			}
			CublasBinding.Loader backends = stream.libraryBinding(CublasBinding.Loader.class);
			CublasBinding binding = CublasLoader.load((backends != null) ? backends : CublasLoader.JNA,
					BlasLibrary.this.libraryPath);
			return CublasHandle.open(binding, stream, BlasLibrary.this.workspaceBytes);
		}

		@Override
		public void close(BlasHandle handle) {
			handle.close();
		}

		@Override
		public String toString() {
			return BlasLibrary.this.toString();
		}

	}

	/**
	 * Builds a {@link BlasLibrary}.
	 */
	public static final class Builder {

		private @Nullable String libraryPath;

		private long workspaceBytes = DEFAULT_WORKSPACE_BYTES;

		private MathMode mathMode = MathMode.DEFAULT;

		private Builder() {
		}

		/**
		 * Sets the path of cuBLAS ({@code offload.blas.library}).
		 * @param libraryPath the path, or {@code null} or blank to search
		 * {@code libcublas.so.13}, then {@code libcublas.so.12}
		 * @return this builder
		 */
		public Builder libraryPath(@Nullable String libraryPath) {
			this.libraryPath = (libraryPath == null || libraryPath.isBlank()) ? null : libraryPath.strip();
			return this;
		}

		/**
		 * Sets the workspace each handle takes from its device's memory
		 * ({@code cublasSetWorkspace_v2}), counted in the memory budget.
		 * @param workspaceBytes the bytes, at least 0 (0: no workspace; cuBLAS then uses
		 * algorithms that need none)
		 * @return this builder
		 */
		public Builder workspaceBytes(long workspaceBytes) {
			if (workspaceBytes < 0) {
				throw new IllegalArgumentException("workspaceBytes must be at least 0, was " + workspaceBytes);
			}
			this.workspaceBytes = workspaceBytes;
			return this;
		}

		/**
		 * Sets the math mode of calls that do not ask for another.
		 * @param mathMode the mode
		 * @return this builder
		 */
		public Builder mathMode(MathMode mathMode) {
			this.mathMode = Objects.requireNonNull(mathMode, "mathMode must not be null");
			return this;
		}

		/**
		 * Builds the library; nothing is loaded until a session calls it.
		 * @return the library
		 */
		public BlasLibrary build() {
			return new BlasLibrary(this);
		}

	}

}
