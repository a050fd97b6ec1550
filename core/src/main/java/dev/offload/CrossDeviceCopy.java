package dev.offload;

import dev.offload.spi.NativeMemory;

/**
 * A session's copy from a buffer of another device, staged through page-locked host
 * memory of that device (portable on CUDA, so the session's stream can read it): the
 * calling thread waits for the work the session enqueued so far, as
 * {@link OffloadSession#synchronize()} does (so an event the session waits for also holds
 * the staging back), then that device's {@link StagingStream} copies the range out,
 * waited for on the calling thread; the copy into the destination is then enqueued on the
 * session. The staging stream is not the source device's pool's, so a session never waits
 * for another device's streams while it holds its own. Peer copies are not used yet:
 * staging works between any two devices.
 */
final class CrossDeviceCopy {

	private CrossDeviceCopy() {
	}

	/**
	 * Checks the ranges, stages the source's range and enqueues the copy into {@code to}.
	 * @param session the session that copies
	 * @param src the source, of another device than the session's
	 * @param srcOffset the offset in the source
	 * @param dst the destination
	 * @param to the destination's memory on the session's device
	 * @param dstOffset the offset in the destination
	 * @param bytes the number of bytes
	 * @throws IllegalArgumentException if a range is outside its buffer, or the copy is
	 * larger than one staging buffer can hold
	 */
	static void copy(OffloadSession session, Buffer src, long srcOffset, Buffer dst, NativeMemory to, long dstOffset,
			long bytes) {
		src.checkOpen("the copy's source");
		src.checkRange(srcOffset, bytes, "the copy's source");
		dst.checkRange(dstOffset, bytes, "the copy's destination");
		if (bytes == 0) {
			return;
		}
		if (bytes > Integer.MAX_VALUE) {
			throw new IllegalArgumentException("A copy between devices stages at most " + Integer.MAX_VALUE
					+ " bytes through host memory, was " + bytes);
		}
		Device source = src.device();
		source.checkTakesWork();
		NativeMemory from = src.memoryFor(source, "the copy's source");
		if (session.work.hasPendingWork()) {
			// As synchronize() waits (within the session's timeout, a virtual thread
			// parked), on the calling thread: the source device's staging stream is held
			// for the copy alone.
			session.work.synchronize();
		}
		HostBuffer staging = new HostBuffer(source, source.sessions().acquireHostMemory(bytes), bytes, session);
		session.work.own(staging);
		source.stagingStream().copyOut(from, srcOffset, staging.memory(), bytes);
		session.work.enqueueCopy(staging.memory(), 0, to, dstOffset, bytes);
		// Given back at the session's next synchronize, once the copy out of it is done:
		// a session kept for many copies holds no staging of the ones before.
		staging.close();
	}

}
