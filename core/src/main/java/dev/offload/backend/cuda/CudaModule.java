package dev.offload.backend.cuda;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.compile.KernelCache;
import dev.offload.BackendException;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendModule;

/**
 * A module loaded with {@code cuModuleLoadData}, from the definition's image or from the
 * image its CUDA source compiles to ({@link KernelCache}). For PTX the kernels and their
 * parameters come from the {@code .entry} signatures; for a cubin or fatbin, whose
 * kernels cannot be listed, from the definition's declared signatures (which a source
 * declares).
 */
final class CudaModule implements BackendModule {

	private static final Logger logger = LoggerFactory.getLogger(CudaModule.class);

	private final CudaDevice device;

	private final CUmodule module;

	private final Map<String, BackendKernel> kernels;

	private boolean unloaded;

	private CudaModule(CudaDevice device, CUmodule module, Map<String, BackendKernel> kernels) {
		this.device = device;
		this.module = module;
		this.kernels = Collections.unmodifiableMap(kernels);
	}

	static CudaModule load(CudaDevice device, ModuleDefinition definition) {
		int deviceId = device.ordinal();
		if (!definition.hasImage() && !definition.hasCudaSource()) {
			throw new BackendException("cuModuleLoadData", "OFFLOAD_NO_CUDA_IMAGE", "module '" + definition.name()
					+ "' has no CUDA source, PTX, cubin or fatbin; add one with ModuleDefinition.Builder.cudaSource, "
					+ "cudaSourceResource, imageResource or image", deviceId, false, null);
		}
		byte[] image;
		boolean ptx;
		if (definition.hasCudaSource()) {
			image = device.compile(definition);
			ptx = PtxEntries.isPtx(image);
		}
		else {
			image = definition.image();
			ptx = PtxEntries.isPtx(image);
		}
		List<PtxEntries.PtxEntry> entries = ptx ? PtxEntries.parse(new String(image, StandardCharsets.US_ASCII))
				: declaredEntries(definition, deviceId);
		device.makeCurrent();
		CUmodule module = new CUmodule();
		CudaErrors.check("cuModuleLoadData(" + definition.name() + " from " + definition.imageSource() + ")",
				CudaCalls.cuModuleLoadData(module, ptx ? nulTerminated(image) : image), deviceId);
		try {
			return new CudaModule(device, module, functions(module, definition, entries, deviceId));
		}
		catch (RuntimeException ex) {
			CudaErrors.checkQuietly("cuModuleUnload", CudaCalls.cuModuleUnload(module), deviceId);
			throw ex;
		}
	}

	private static Map<String, BackendKernel> functions(CUmodule module, ModuleDefinition definition,
			List<PtxEntries.PtxEntry> entries, int deviceId) {
		Map<String, BackendKernel> kernels = new LinkedHashMap<>();
		for (PtxEntries.PtxEntry entry : entries) {
			if (!entry.isSupported()) {
				logger.warn("Kernel '{}' of module '{}' is left out: {}", entry.name(), definition.name(),
						entry.unsupported());
				continue;
			}
			CUfunction function = new CUfunction();
			CudaErrors.check("cuModuleGetFunction(" + entry.name() + ")",
					CudaCalls.cuModuleGetFunction(function, module, entry.name()), deviceId);
			kernels.put(entry.name(), new CudaKernel(entry.name(), entry.parameters(), function));
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

	static byte[] nulTerminated(byte[] ptx) {
		if (ptx.length > 0 && ptx[ptx.length - 1] == 0) {
			return ptx;
		}
		return Arrays.copyOf(ptx, ptx.length + 1);
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
			CudaErrors.checkQuietly("cuModuleUnload", CudaCalls.cuModuleUnload(this.module), this.device.ordinal());
		}
		catch (BackendException ex) {
			CudaErrors.logReleaseFailure(ex);
		}
	}

	/**
	 * A kernel of a loaded module.
	 *
	 * @param name the entry's name
	 * @param parameters the parameter kinds
	 * @param function the driver's handle
	 */
	record CudaKernel(String name, List<ParamKind> parameters, CUfunction function) implements BackendKernel {

	}

}
