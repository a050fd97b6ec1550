package dev.offload.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * A module's code for every backend that may run it: CUDA C source (compiled by the CUDA
 * backend with NVRTC for the device's architecture) or a CUDA image (PTX, cubin or
 * fatbin), and/or Java implementations of its kernels for the host backend. Load it with
 * {@link dev.offload.Device#loadModule(ModuleDefinition)}.
 * <p>
 * A kernel's parameter list comes from its {@link Builder#signature signature}, its
 * {@code extern "C" __global__} declaration in the {@link Builder#cudaSource source}, or
 * its {@link Builder#hostKernel host kernel}; failing those, the CUDA backend reads it
 * from the PTX {@code .entry}.
 */
public final class ModuleDefinition {

	private final String name;

	private final @Nullable Supplier<byte[]> image;

	private final @Nullable String imageSource;

	private final Map<String, HostKernelDefinition> hostKernels;

	private final Map<String, List<ParamKind>> signatures;

	private final @Nullable CudaSource cudaSource;

	private ModuleDefinition(Builder builder, @Nullable CudaSource cudaSource,
			Map<String, HostKernelDefinition> hostKernels, Map<String, List<ParamKind>> signatures) {
		this.name = builder.name;
		this.image = builder.image;
		this.imageSource = (cudaSource != null) ? builder.sourceLocation : builder.imageSource;
		this.cudaSource = cudaSource;
		this.hostKernels = Collections.unmodifiableMap(hostKernels);
		this.signatures = Collections.unmodifiableMap(signatures);
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
	 * Tells whether the module has CUDA C source, which the CUDA backend compiles.
	 * @return {@code true} if source was given
	 */
	public boolean hasCudaSource() {
		return this.cudaSource != null;
	}

	/**
	 * Returns the module's CUDA C source.
	 * @return the source with its includes and options
	 * @throws IllegalStateException if the module has none
	 */
	public CudaSource cudaSource() {
		if (this.cudaSource == null) {
			throw new IllegalStateException("Module '" + this.name + "' has no CUDA C source");
		}
		return this.cudaSource;
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
	 * Describes where the image or source comes from, for messages.
	 * @return e.g. {@code "classpath:kernels/options.cu"}, or {@code null} without an
	 * image or source
	 */
	public @Nullable String imageSource() {
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
	public @Nullable List<ParamKind> declaredParameters(String kernel) {
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
		return "ModuleDefinition[" + this.name + ", " + ((this.cudaSource != null) ? "source=" : "image=")
				+ this.imageSource + ", hostKernels=" + this.hostKernels.keySet() + "]";
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

		private @Nullable Supplier<byte[]> image;

		private @Nullable String imageSource;

		/**
		 * The resource {@link #imageResource} named, checked at {@link #build()};
		 * {@code null} otherwise.
		 */
		private @Nullable String imageResource;

		private @Nullable ClassLoader imageClassLoader;

		private final Map<String, HostKernelDefinition> hostKernels = new LinkedHashMap<>();

		private final Map<String, List<ParamKind>> signatures = new LinkedHashMap<>();

		private final Map<String, HostKernel> hostKernelsFromSource = new LinkedHashMap<>();

		private @Nullable String sourceName;

		private @Nullable Supplier<String> sourceText;

		private @Nullable String sourceLocation;

		private final Map<String, Supplier<String>> includes = new LinkedHashMap<>();

		private final List<String> compileOptions = new ArrayList<>();

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
		 * Sets the module's CUDA C source from text; the CUDA backend compiles it for the
		 * device's architecture when it loads the module.
		 * @param fileName the source's file name, as compiler messages quote it (e.g.
		 * {@code "options.cu"})
		 * @param text the source
		 * @return this builder
		 */
		public Builder cudaSource(String fileName, String text) {
			Objects.requireNonNull(fileName, "fileName");
			Objects.requireNonNull(text, "text");
			this.sourceName = fileName;
			this.sourceText = () -> text;
			this.sourceLocation = "source " + fileName;
			return this;
		}

		/**
		 * Sets the module's CUDA C source from a classpath resource, read by
		 * {@link #build()}.
		 * @param location the resource, e.g. {@code "kernels/options.cu"}
		 * @param classLoader the class loader to read it with
		 * @return this builder
		 */
		public Builder cudaSourceResource(String location, ClassLoader classLoader) {
			String resource = resourcePath(location);
			Objects.requireNonNull(classLoader, "classLoader");
			this.sourceName = resource.substring(resource.lastIndexOf('/') + 1);
			this.sourceText = () -> readText(classLoader, resource, "CUDA source of module '" + this.name + "'");
			this.sourceLocation = "classpath:" + resource;
			return this;
		}

		/**
		 * Sets the module's CUDA C source from a classpath resource of this class's class
		 * loader, read by {@link #build()}.
		 * @param location the resource, e.g. {@code "kernels/options.cu"}
		 * @return this builder
		 */
		public Builder cudaSourceResource(String location) {
			return cudaSourceResource(location, ModuleDefinition.class.getClassLoader());
		}

		/**
		 * Adds a header the source may {@code #include "name"}.
		 * @param name the name the source includes it by, e.g. {@code "common.cuh"}
		 * @param text the header's text
		 * @return this builder
		 */
		public Builder include(String name, String text) {
			checkIncludeName(name);
			Objects.requireNonNull(text, "text");
			this.includes.put(name, () -> text);
			return this;
		}

		/**
		 * Adds a header the source may {@code #include "name"}, from a classpath resource
		 * read by {@link #build()}.
		 * @param name the name the source includes it by, e.g. {@code "common.cuh"}
		 * @param location the resource, e.g. {@code "kernels/common.cuh"}
		 * @param classLoader the class loader to read it with
		 * @return this builder
		 */
		public Builder includeResource(String name, String location, ClassLoader classLoader) {
			checkIncludeName(name);
			String resource = resourcePath(location);
			Objects.requireNonNull(classLoader, "classLoader");
			this.includes.put(name,
					() -> readText(classLoader, resource, "include '" + name + "' of module '" + this.name + "'"));
			return this;
		}

		/**
		 * Adds a header the source may {@code #include "name"}, from a classpath resource
		 * of this class's class loader.
		 * @param name the name the source includes it by
		 * @param location the resource
		 * @return this builder
		 */
		public Builder includeResource(String name, String location) {
			return includeResource(name, location, ModuleDefinition.class.getClassLoader());
		}

		/**
		 * Adds NVRTC options for the source, e.g. {@code "--use_fast_math"}; the
		 * architecture is the device's own and cannot be set here.
		 * @param options the options
		 * @return this builder
		 */
		public Builder compileOptions(String... options) {
			for (String option : options) {
				this.compileOptions.add(Objects.requireNonNull(option, "option"));
			}
			return this;
		}

		/**
		 * Adds a kernel's Java implementation for the host backend, with the parameters
		 * of its {@code extern "C" __global__} declaration in the {@link #cudaSource CUDA
		 * source}.
		 * @param kernel the kernel's name in the source
		 * @param implementation the implementation, called once per emulated thread
		 * @return this builder
		 */
		public Builder hostKernel(String kernel, HostKernel implementation) {
			checkKernelName(kernel);
			Objects.requireNonNull(implementation, "implementation");
			this.hostKernelsFromSource.put(kernel, implementation);
			return this;
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

		private static void checkIncludeName(String name) {
			if (name == null || name.isBlank()) {
				throw new IllegalArgumentException("An include needs the name the source includes it by");
			}
		}

		private static String resourcePath(String location) {
			Objects.requireNonNull(location, "location");
			String path = location.startsWith("classpath:") ? location.substring("classpath:".length()) : location;
			return path.startsWith("/") ? path.substring(1) : path;
		}

		private static void checkKernelName(String kernel) {
			if (kernel == null || kernel.isBlank()) {
				throw new IllegalArgumentException("A kernel needs a name");
			}
		}

		/**
		 * Builds the definition, reading its CUDA source and includes and the kernel
		 * signatures declared in the source.
		 * @return the definition
		 * @throws IllegalArgumentException if it has no code, both an image and source,
		 * an image or source resource that does not exist, a source kernel whose
		 * parameters no {@link ParamKind} can pass, or a host kernel that the source does
		 * not declare or declares with other parameters
		 */
		public ModuleDefinition build() {
			if (this.image == null && this.sourceText == null && this.hostKernels.isEmpty()
					&& this.hostKernelsFromSource.isEmpty()) {
				throw new IllegalArgumentException(
						"Module '" + this.name + "' has neither CUDA code (source or image) nor host kernels");
			}
			if (this.image != null && this.sourceText != null) {
				throw new IllegalArgumentException("Module '" + this.name + "' has both CUDA source ("
						+ this.sourceLocation + ") and an image (" + this.imageSource + "); give one");
			}
			// A missing image would otherwise surface only when a GPU loads the module,
			// long after start-up.
			if (this.imageResource != null
					&& Objects.requireNonNull(this.imageClassLoader).getResource(this.imageResource) == null) {
				throw new IllegalArgumentException("The CUDA image of module '" + this.name + "', classpath:"
						+ this.imageResource + ", does not exist (class loader " + this.imageClassLoader + ")");
			}
			CudaSource source = (this.sourceText != null) ? readSource() : null;
			// Copies, so that the builder stays as the caller left it.
			Map<String, HostKernelDefinition> hosts = new LinkedHashMap<>(this.hostKernels);
			Map<String, List<ParamKind>> declared = new LinkedHashMap<>(this.signatures);
			if (source != null) {
				addSourceSignatures(source, hosts, declared);
			}
			else if (!this.hostKernelsFromSource.isEmpty()) {
				throw new IllegalArgumentException(
						"Module '" + this.name + "' has host kernels " + this.hostKernelsFromSource.keySet()
								+ " without parameters and no CUDA source to read them from; give their parameters");
			}
			return new ModuleDefinition(this, source, hosts, declared);
		}

		private CudaSource readSource() {
			Map<String, String> includeTexts = new LinkedHashMap<>();
			this.includes.forEach((include, text) -> includeTexts.put(include, text.get()));
			// Called when a source was given, which sets its name and text together.
			return new CudaSource(Objects.requireNonNull(this.sourceName),
					Objects.requireNonNull(this.sourceText).get(), includeTexts, this.compileOptions);
		}

		private void addSourceSignatures(CudaSource source, Map<String, HostKernelDefinition> hosts,
				Map<String, List<ParamKind>> signatures) {
			Map<String, List<ParamKind>> declared = CudaSignatures.parse(source.name(), source.text());
			for (Map.Entry<String, List<ParamKind>> kernel : declared.entrySet()) {
				signatures.putIfAbsent(kernel.getKey(), kernel.getValue());
				HostKernelDefinition host = hosts.get(kernel.getKey());
				if (host != null && !host.parameters().equals(kernel.getValue())) {
					throw new IllegalArgumentException(
							"Host kernel '" + kernel.getKey() + "' of module '" + this.name + "' is declared with "
									+ host.parameters() + " but " + source.name() + " declares " + kernel.getValue());
				}
			}
			for (Map.Entry<String, HostKernel> host : this.hostKernelsFromSource.entrySet()) {
				List<ParamKind> parameters = declared.get(host.getKey());
				if (parameters == null) {
					throw new IllegalArgumentException("Host kernel '" + host.getKey() + "' of module '" + this.name
							+ "' has no extern \"C\" __global__ declaration in " + source.name() + "; its kernels are "
							+ declared.keySet());
				}
				hosts.put(host.getKey(), new HostKernelDefinition(parameters, host.getValue()));
			}
		}

		private static String readText(ClassLoader classLoader, String resource, String what) {
			try (InputStream in = classLoader.getResourceAsStream(resource)) {
				if (in == null) {
					throw new IllegalArgumentException("The " + what + ", classpath:" + resource
							+ ", does not exist (class loader " + classLoader + ")");
				}
				return new String(in.readAllBytes(), StandardCharsets.UTF_8);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot read the " + what + ", classpath:" + resource, ex);
			}
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
