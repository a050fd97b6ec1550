package dev.offload.spring.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import dev.offload.Device;

/**
 * The names, tags, descriptions and units of Offload's meters, in one place.
 */
final class OffloadMeters {

	static final String STREAMS = "offload.streams";

	static final String STREAMS_ACTIVE = "offload.streams.active";

	static final String STREAMS_IDLE = "offload.streams.idle";

	static final String STREAMS_PENDING = "offload.streams.pending";

	static final String STREAMS_MAX = "offload.streams.max";

	static final String STREAMS_ACQUIRE = "offload.streams.acquire";

	static final String STREAMS_TIMEOUT = "offload.streams.timeout";

	static final String STREAMS_DISCARDED = "offload.streams.discarded";

	static final String SESSIONS_LEAKED = "offload.sessions.leaked";

	static final String SESSIONS_TIMEOUTS = "offload.sessions.timeouts";

	static final String SESSIONS_PENDING = "offload.sessions.pending";

	static final String STREAMS_OLDEST_WAIT = "offload.streams.oldest.wait";

	static final String HEALTHY_DEVICES = "offload.healthy.devices";

	static final String STREAMS_LANE_ACTIVE = "offload.streams.lane.active";

	static final String STREAMS_LANE_MAX = "offload.streams.lane.max";

	static final String LIBRARY_CALLS = "offload.library.calls";

	static final String UNIT_STREAMS = "streams";

	static final String UNIT_THREADS = "threads";

	static final String UNIT_BORROWS = "borrows";

	static final String UNIT_SESSIONS = "sessions";

	static final String UNIT_DEVICES = "devices";

	private OffloadMeters() {
	}

	/**
	 * The counter of the faults the GPU reported, tagged {@code device} and {@code xid}.
	 */
	static final String GPU_FAULTS = "offload.gpu.faults";

	/** Work waiting on a device: borrowers, budget waiters and batchers' queued items. */
	static final String QUEUED = "offload.queued";

	static final String UNIT_REQUESTS = "requests";

	/**
	 * The timer of the sessions closed, tagged {@code device}, {@code tenant} and
	 * {@code outcome}.
	 */
	static final String TENANT_SESSIONS = "offload.tenant.sessions";

	/**
	 * The gauge of the sessions open, tagged {@code device} and {@code tenant}.
	 */
	static final String TENANT_SESSIONS_ACTIVE = "offload.tenant.sessions.active";

	/**
	 * The gauge of the streams a tenant holds, tagged {@code device} and {@code tenant}.
	 */
	static final String TENANT_STREAMS_ACTIVE = "offload.tenant.streams.active";

	/**
	 * The gauge of a tenant's borrowers waiting, tagged {@code device} and
	 * {@code tenant}.
	 */
	static final String TENANT_STREAMS_PENDING = "offload.tenant.streams.pending";

	/**
	 * The function timer of a tenant's borrows and their waits, tagged {@code device} and
	 * {@code tenant}.
	 */
	static final String TENANT_STREAMS_ACQUIRE = "offload.tenant.streams.acquire";

	/**
	 * The function timer of a tenant's requests that waited for the memory budget and
	 * their waits, tagged {@code device} and {@code tenant}.
	 */
	static final String TENANT_MEMORY_WAITS = "offload.tenant.memory.waits";

	/**
	 * The function counter of a tenant's requests the memory budget refused, tagged
	 * {@code device} and {@code tenant}.
	 */
	static final String TENANT_MEMORY_REFUSED = "offload.tenant.memory.refused";

	/**
	 * The timer of each batched item's wait in its batcher's queue, tagged {@code kernel}
	 * and {@code tenant}.
	 */
	static final String TENANT_BATCH_QUEUE_DELAY = "offload.tenant.batch.queue.delay";

	static Tags tags(Device device) {
		return Tags.of("device", String.valueOf(device.id()), "backend", device.backendName());
	}

	static Timer acquireTimer(MeterRegistry registry, Device device) {
		return Timer.builder(STREAMS_ACQUIRE)
			.description("Time to borrow a stream, creation and waiting included")
			.tags(tags(device))
			.register(registry);
	}

}
