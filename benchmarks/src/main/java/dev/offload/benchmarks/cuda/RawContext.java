package dev.offload.benchmarks.cuda;

import java.util.HashMap;
import java.util.Map;

import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

import dev.offload.OffloadSession;
import dev.offload.backend.cuda.CudaSessions;

/**
 * The context a benchmark's raw JCuda loop runs in: the one Offload's session runs in, so
 * that both sides share the device's primary context. On the JCuda binding that is the
 * session's own context; on another binding (FFM), JCuda retains the device's primary
 * context, which that binding uses too. JCuda's checks are left as they are (its
 * exceptions mode is JVM-wide): each call's result is checked here.
 */
final class RawContext {

	private static final Map<Integer, CUcontext> retained = new HashMap<>();

	private RawContext() {
	}

	/**
	 * Returns the primary context of the session's device and makes it current on the
	 * calling thread.
	 * @param session an open session of a CUDA backend
	 * @param backend the benchmark's backend: {@code cuda} (JCuda) or {@code ffm}
	 * @param ordinal the device's ordinal
	 * @return the context
	 */
	static CUcontext current(OffloadSession session, String backend, int ordinal) {
		if (backend.equals("cuda")) {
			CudaSessions.makeContextCurrent(session);
			return CudaSessions.context(session);
		}
		CUcontext context = primary(ordinal);
		check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
		return context;
	}

	/**
	 * The device's primary context, retained once for the process (a retain per registry
	 * would keep it alive past each registry's close, so that a new registry's first
	 * round would not start as cold as on the JCuda binding).
	 */
	private static synchronized CUcontext primary(int ordinal) {
		CUcontext context = retained.get(ordinal);
		if (context == null) {
			check(JCudaDriver.cuInit(0), "cuInit");
			CUdevice device = new CUdevice();
			check(JCudaDriver.cuDeviceGet(device, ordinal), "cuDeviceGet");
			context = new CUcontext();
			check(JCudaDriver.cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain");
			retained.put(ordinal, context);
		}
		return context;
	}

	private static void check(int result, String call) {
		if (result != CUresult.CUDA_SUCCESS) {
			throw new IllegalStateException(call + " failed: " + CUresult.stringFor(result));
		}
	}

}
