package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.BackendException;
import dev.offload.backend.cuda.PtxEntries;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendModule;

/**
 * A module loaded with {@code cuModuleLoadData}, from the definition's image or from the
 * image its CUDA source compiles to, as the JCuda binding's {@code CudaModule}: kernels
 * and parameters from the PTX {@code .entry} signatures, or for a cubin or fatbin from
 * the definition's declared signatures.
 */
final class FfmModule implements BackendModule {

	private static final Logger logger = LoggerFactory.getLogger(FfmModule.class);

	private final FfmDevice device;

	private final long module;

	private final Map<String, BackendKernel> kernels;

	private boolean unloaded;

	private FfmModule(FfmDevice device, long module, Map<String, BackendKernel> kernels) {
		this.device = device;
		this.module = module;
		this.kernels = Collections.unmodifiableMap(kernels);
	}

	static FfmModule load(FfmDevice device, ModuleDefinition definition) {
		int deviceId = device.ordinal();
		if (!definition.hasImage() && !definition.hasCudaSource()) {
			throw new BackendException("cuModuleLoadData", "OFFLOAD_NO_CUDA_IMAGE", "module '" + definition.name()
					+ "' has no CUDA source, PTX, cubin or fatbin; add one with ModuleDefinition.Builder.cudaSource, "
					+ "cudaSourceResource, imageResource or image", deviceId, false, null);
		}
		byte[] image = definition.hasCudaSource() ? device.compile(definition) : definition.image();
		boolean ptx = PtxEntries.isPtx(image);
		List<PtxEntries.PtxEntry> entries = ptx ? PtxEntries.parse(new String(image, StandardCharsets.US_ASCII))
				: declaredEntries(definition, deviceId);
		device.makeCurrent();
		long module;
		try (Arena arena = Arena.ofConfined()) {
			// PTX must end with a NUL; one more byte does a cubin no harm.
			MemorySegment data = arena.allocate(image.length + 1L, 16);
			MemorySegment.copy(image, 0, data, ValueLayout.JAVA_BYTE, 0, image.length);
			MemorySegment pointer = arena.allocate(ValueLayout.JAVA_LONG);
			CuErrors.check("cuModuleLoadData(" + definition.name() + " from " + definition.imageSource() + ")",
					Cu.cuModuleLoadData(pointer.address(), data.address()), deviceId);
			module = pointer.get(ValueLayout.JAVA_LONG, 0);
		}
		try {
			return new FfmModule(device, module, functions(module, definition, entries, deviceId));
		}
		catch (RuntimeException ex) {
			CuErrors.checkQuietly("cuModuleUnload", Cu.cuModuleUnload(module), deviceId);
			throw ex;
		}
	}

	private static Map<String, BackendKernel> functions(long module, ModuleDefinition definition,
			List<PtxEntries.PtxEntry> entries, int deviceId) {
		Map<String, BackendKernel> kernels = new LinkedHashMap<>();
		try (Arena arena = Arena.ofConfined()) {
			MemorySegment pointer = arena.allocate(ValueLayout.JAVA_LONG);
			for (PtxEntries.PtxEntry entry : entries) {
				if (!entry.isSupported()) {
					logger.warn("Kernel '{}' of module '{}' is left out: {}", entry.name(), definition.name(),
							entry.unsupported());
					continue;
				}
				CuErrors.check("cuModuleGetFunction(" + entry.name() + ")",
						Cu.cuModuleGetFunction(pointer.address(), module, arena.allocateFrom(entry.name()).address()),
						deviceId);
				kernels.put(entry.name(),
						new FfmKernel(entry.name(), entry.parameters(), pointer.get(ValueLayout.JAVA_LONG, 0)));
			}
		}
		return kernels;
	}

	private static List<PtxEntries.PtxEntry> declaredEntries(ModuleDefinition definition, int deviceId) {
		List<PtxEntries.PtxEntry> entries = new ArrayList<>();
		for (String kernel : definition.declaredKernels()) {
			entries.add(new PtxEntries.PtxEntry(kernel, Objects.requireNonNull(definition.declaredParameters(kernel)),
					null));
		}
		if (entries.isEmpty()) {
			String message = definition.hasCudaSource()
					? "module '" + definition.name() + "' has no extern \"C\" __global__ kernel in "
							+ definition.cudaSource().name()
							+ "; kernels are found by name, so declare them extern \"C\""
					: "module '" + definition.name() + "' is a cubin or fatbin, whose kernels cannot be listed; "
							+ "declare each kernel with ModuleDefinition.Builder.signature";
			throw new BackendException("cuModuleLoadData", "OFFLOAD_NO_KERNELS_DECLARED", message, deviceId, false,
					null);
		}
		return entries;
	}

	@Override
	public Map<String, BackendKernel> kernels() {
		return this.kernels;
	}

	@Override
	public synchronized void unload() {
		if (this.unloaded) {
			return;
		}
		this.unloaded = true;
		try {
			this.device.makeCurrent();
			CuErrors.checkQuietly("cuModuleUnload", Cu.cuModuleUnload(this.module), this.device.ordinal());
		}
		catch (BackendException ex) {
			CuErrors.logReleaseFailure(ex);
		}
	}

	/**
	 * A kernel of a loaded module.
	 *
	 * @param name the entry's name
	 * @param parameters the parameter kinds
	 * @param function the {@code CUfunction}
	 */
	record FfmKernel(String name, List<ParamKind> parameters, long function) implements BackendKernel {

	}

}
