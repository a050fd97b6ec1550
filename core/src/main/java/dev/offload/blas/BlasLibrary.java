package dev.offload.blas;

import java.util.Objects;
import java.util.OptionalLong;

import org.jspecify.annotations.Nullable;

import dev.offload.Device;
import dev.offload.LibraryStatistics;
import dev.offload.LibraryStream;
import dev.offload.OffloadSession;
import dev.offload.StreamLibrary;
import dev.offload.internal.blas.CublasBinding;
import dev.offload.spi.DeviceInfo;

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
	 * The workspace cuBLAS recommends before Hopper (compute capability below 9.0): 4
	 * MiB.
	 */
	public static final long RECOMMENDED_WORKSPACE_BYTES_BEFORE_HOPPER = 4L << 20;

	/**
	 * The workspace cuBLAS recommends on Hopper and later (compute capability 9.0 and
	 * up), where large GEMMs (TF32 ones among them) pick faster algorithms with it: 32
	 * MiB, what cuBLAS takes for a handle without one of its own.
	 */
	public static final long RECOMMENDED_WORKSPACE_BYTES_HOPPER = 32L << 20;

	/** The workspace setting that means cuBLAS's recommendation for each device. */
	private static final long RECOMMENDED = -1;

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
	 * Returns the library with the defaults: cuBLAS by soname, the workspace cuBLAS
	 * recommends for each device's architecture, {@link MathMode#DEFAULT}.
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
	 * Returns the workspace each handle takes from its device's memory, where it was set.
	 * @return the bytes (0: none), or empty when each device's handles take what cuBLAS
	 * recommends for it ({@link #recommendedWorkspaceBytes})
	 */
	public OptionalLong workspaceBytes() {
		return (this.workspaceBytes == RECOMMENDED) ? OptionalLong.empty() : OptionalLong.of(this.workspaceBytes);
	}

	/**
	 * Returns the workspace a handle on the device takes from its memory: the size set,
	 * or what cuBLAS recommends for the device.
	 * @param device the device
	 * @return the bytes; 0 for none
	 */
	public long workspaceBytes(Device device) {
		if (device == null) {
			throw new IllegalArgumentException("device must not be null");
		}
		return (this.workspaceBytes == RECOMMENDED) ? recommendedWorkspaceBytes(device.info()) : this.workspaceBytes;
	}

	/**
	 * Returns the workspace cuBLAS recommends for a device:
	 * {@value #RECOMMENDED_WORKSPACE_BYTES_HOPPER} bytes from compute capability 9.0
	 * (Hopper), {@value #RECOMMENDED_WORKSPACE_BYTES_BEFORE_HOPPER} before (and for the
	 * host backend's devices, whose emulation takes none).
	 * @param device the device's description
	 * @return the bytes
	 */
	public static long recommendedWorkspaceBytes(DeviceInfo device) {
		return (device.computeCapabilityMajor() >= 9) ? RECOMMENDED_WORKSPACE_BYTES_HOPPER
				: RECOMMENDED_WORKSPACE_BYTES_BEFORE_HOPPER;
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
				+ ", workspace "
				+ ((this.workspaceBytes == RECOMMENDED) ? "as recommended" : this.workspaceBytes + " bytes") + ", "
				+ this.mathMode + "]";
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
			return CublasHandle.open(binding, stream, workspaceBytes(stream.device()));
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

		private long workspaceBytes = RECOMMENDED;

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
		 * Has each device's handles take the workspace cuBLAS recommends for it (the
		 * default): {@link BlasLibrary#recommendedWorkspaceBytes}.
		 * @return this builder
		 */
		public Builder recommendedWorkspace() {
			this.workspaceBytes = RECOMMENDED;
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
