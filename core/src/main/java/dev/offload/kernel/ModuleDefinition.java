package dev.offload.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A module's code for every backend that may run it: a CUDA image (PTX, cubin or fatbin)
 * and/or Java implementations of its kernels for the host backend. Load it with
 * {@link dev.offload.Device#loadModule(ModuleDefinition)}.
 * <p>
 * A kernel's parameter list comes from its {@link Builder#hostKernel host kernel} or
 * {@link Builder#signature signature} declaration; failing that, the CUDA backend reads
 * it from the PTX {@code .entry}.
 */
public final class ModuleDefinition {

	private final String name;

	private final Supplier<byte[]> image;

	private final String imageSource;

	private final Map<String, HostKernelDefinition> hostKernels;

	private final Map<String, List<ParamKind>> signatures;

	private ModuleDefinition(Builder builder) {
		this.name = builder.name;
		this.image = builder.image;
		this.imageSource = builder.imageSource;
		this.hostKernels = Collections.unmodifiableMap(new LinkedHashMap<>(builder.hostKernels));
		this.signatures = Collections.unmodifiableMap(new LinkedHashMap<>(builder.signatures));
	}

	/**
	 * Starts a definition.
	 * @param name the module's name, used in messages and as its cache key on a device
	 * @return a builder
	 */
	public static Builder builder(String name) {
		return new Builder(name);
	}

	/**
	 * Returns the module's name.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Tells whether the module has a CUDA image.
	 * @return {@code true} if PTX, cubin or fatbin was given
	 */
	public boolean hasImage() {
		return this.image != null;
	}

	/**
	 * Returns the CUDA image, reading it if it was given as a resource.
	 * @return the image bytes
	 * @throws IllegalStateException if the module has no image
	 * @throws UncheckedIOException if the resource cannot be read
	 */
	public byte[] image() {
		if (this.image == null) {
			throw new IllegalStateException("Module '" + this.name + "' has no CUDA image (PTX, cubin or fatbin)");
		}
		return this.image.get();
	}

	/**
	 * Describes where the image comes from, for messages.
	 * @return e.g. {@code "classpath:kernels/options.ptx"}
	 */
	public String imageSource() {
		return this.imageSource;
	}

	/**
	 * Returns the host backend's kernels.
	 * @return kernels by name, in declaration order
	 */
	public Map<String, HostKernelDefinition> hostKernels() {
		return this.hostKernels;
	}

	/**
	 * Returns the parameter list declared for a kernel, from its host kernel or its
	 * signature.
	 * @param kernel the kernel's name
	 * @return the parameters, or {@code null} if none was declared
	 */
	public List<ParamKind> declaredParameters(String kernel) {
		List<ParamKind> signature = this.signatures.get(kernel);
		if (signature != null) {
			return signature;
		}
		HostKernelDefinition host = this.hostKernels.get(kernel);
		return (host != null) ? host.parameters() : null;
	}

	/**
	 * Returns the names of the kernels declared by a {@link Builder#signature signature}
	 * or a {@link Builder#hostKernel host kernel}: the kernels a backend looks up in an
	 * image it cannot read, such as a cubin.
	 * @return the names, signatures first, in declaration order
	 */
	public Set<String> declaredKernels() {
		Set<String> names = new LinkedHashSet<>(this.signatures.keySet());
		names.addAll(this.hostKernels.keySet());
		return Collections.unmodifiableSet(names);
	}

	@Override
	public String toString() {
		return "ModuleDefinition[" + this.name + ", image=" + this.imageSource + ", hostKernels="
				+ this.hostKernels.keySet() + "]";
	}

	/**
	 * A kernel's Java implementation and parameters, for the host backend.
	 *
	 * @param parameters the parameter kinds, in order
	 * @param kernel the implementation
	 */
	public record HostKernelDefinition(List<ParamKind> parameters, HostKernel kernel) {

	}

	/**
	 * Builds a {@link ModuleDefinition}.
	 */
	public static final class Builder {

		private final String name;

		private Supplier<byte[]> image;

		private String imageSource;

		/**
		 * The resource {@link #imageResource} named, checked at {@link #build()};
		 * {@code null} otherwise.
		 */
		private String imageResource;

		private ClassLoader imageClassLoader;

		private final Map<String, HostKernelDefinition> hostKernels = new LinkedHashMap<>();

		private final Map<String, List<ParamKind>> signatures = new LinkedHashMap<>();

		private Builder(String name) {
			if (name == null || name.isBlank()) {
				throw new IllegalArgumentException("A module needs a name");
			}
			this.name = name;
		}

		/**
		 * Sets the CUDA image: PTX text, a cubin or a fatbin.
		 * @param bytes the image
		 * @return this builder
		 */
		public Builder image(byte[] bytes) {
			Objects.requireNonNull(bytes, "bytes");
			if (bytes.length == 0) {
				throw new IllegalArgumentException("The image of module '" + this.name + "' is empty");
			}
			byte[] copy = bytes.clone();
			this.image = copy::clone;
			this.imageSource = "bytes[" + copy.length + "]";
			this.imageResource = null;
			this.imageClassLoader = null;
			return this;
		}

		/**
		 * Sets the CUDA image from a classpath resource, read when the module is first
		 * loaded; {@link #build()} checks that it exists.
		 * @param location the resource, e.g. {@code "kernels/options.ptx"}
		 * @param classLoader the class loader to read it with
		 * @return this builder
		 */
		public Builder imageResource(String location, ClassLoader classLoader) {
			Objects.requireNonNull(location, "location");
			Objects.requireNonNull(classLoader, "classLoader");
			String path = location.startsWith("classpath:") ? location.substring("classpath:".length()) : location;
			String resource = path.startsWith("/") ? path.substring(1) : path;
			this.image = () -> readResource(classLoader, resource);
			this.imageSource = "classpath:" + resource;
			this.imageResource = resource;
			this.imageClassLoader = classLoader;
			return this;
		}

		/**
		 * Sets the CUDA image from a classpath resource of this class's class loader;
		 * {@link #build()} checks that it exists.
		 * @param location the resource, e.g. {@code "kernels/options.ptx"}
		 * @return this builder
		 */
		public Builder imageResource(String location) {
			return imageResource(location, ModuleDefinition.class.getClassLoader());
		}

		/**
		 * Adds a kernel's Java implementation for the host backend; its parameters also
		 * check CUDA launches.
		 * @param kernel the kernel's name (the PTX entry name)
		 * @param parameters the parameter kinds, in order
		 * @param implementation the implementation, called once per emulated thread
		 * @return this builder
		 */
		public Builder hostKernel(String kernel, List<ParamKind> parameters, HostKernel implementation) {
			checkKernelName(kernel);
			Objects.requireNonNull(implementation, "implementation");
			this.hostKernels.put(kernel, new HostKernelDefinition(List.copyOf(parameters), implementation));
			return this;
		}

		/**
		 * Declares a kernel's parameters, which PTX alone cannot say (pointers and 64-bit
		 * integers look alike).
		 * @param kernel the kernel's name (the PTX entry name)
		 * @param parameters the parameter kinds, in order
		 * @return this builder
		 */
		public Builder signature(String kernel, ParamKind... parameters) {
			checkKernelName(kernel);
			this.signatures.put(kernel, List.copyOf(Arrays.asList(parameters)));
			return this;
		}

		private static void checkKernelName(String kernel) {
			if (kernel == null || kernel.isBlank()) {
				throw new IllegalArgumentException("A kernel needs a name");
			}
		}

		/**
		 * Builds the definition.
		 * @return the definition
		 * @throws IllegalArgumentException if it has neither an image nor host kernels,
		 * or if its image resource does not exist
		 */
		public ModuleDefinition build() {
			if (this.image == null && this.hostKernels.isEmpty()) {
				throw new IllegalArgumentException(
						"Module '" + this.name + "' has neither a CUDA image nor host kernels");
			}
			// A missing image would otherwise surface only when a GPU loads the module,
			// long after start-up.
			if (this.imageResource != null && this.imageClassLoader.getResource(this.imageResource) == null) {
				throw new IllegalArgumentException("The CUDA image of module '" + this.name + "', classpath:"
						+ this.imageResource + ", does not exist (class loader " + this.imageClassLoader + ")");
			}
			return new ModuleDefinition(this);
		}

		private static byte[] readResource(ClassLoader classLoader, String resource) {
			try (InputStream in = classLoader.getResourceAsStream(resource)) {
				if (in == null) {
					throw new UncheckedIOException(
							new IOException("Kernel image resource not found: classpath:" + resource));
				}
				return in.readAllBytes();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot read kernel image classpath:" + resource, ex);
			}
		}

	}

}
