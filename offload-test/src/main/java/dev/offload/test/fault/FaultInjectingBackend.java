package dev.offload.test.fault;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import dev.offload.BackendException;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.GpuFaultSource;

/**
 * Wraps any {@link Backend} and makes chosen operations fail — on the Nth call, at a
 * rate, or as a sticky device error that kills the device — or run slow. For tests of
 * pools, sessions and applications under faults: <pre>{@code
 * FaultInjectingBackend faults = FaultInjectingBackend.wrap(HostBackend.builder().build());
 * faults.failNth(Operation.LAUNCH, 3);                 // the 3rd launch's work fails
 * faults.failAtRate(Operation.SYNCHRONIZE, 0.01, 42);  // 1% of synchronizes fail
 * faults.failStickyNth(Operation.LAUNCH, 10);          // the 10th launch kills the device
 * faults.delay(Operation.SYNCHRONIZE, Duration.ofMillis(2));
 * faults.failDevice(1, "Xid 79");                    // device 1 is lost now: its next call fails sticky
 * faults.failOutOfMemoryNth(1, 2);                    // the next 2 device allocations find it full
 * faults.failOutOfMemoryNth(Operation.ALLOCATE_HOST, 1, 1); // the host has no page-locked memory
 * faults.injectXid(0, 79);                            // NVML reports Xid 79 of device 0
 * DeviceRegistry registry = DeviceRegistry.builder(faults).build();
 * }</pre> A failed launch fails like a kernel on a GPU: the launch call returns, and the
 * stream's next query or synchronize throws. An injected query or synchronize fault also
 * stands for failed work: it fires once the stream's work is over. Other operations throw
 * at the call. Injected errors are {@link BackendException}s named {@code INJECTED_FAULT}
 * (or {@code INJECTED_STICKY_FAULT}, or {@code INJECTED_ERROR_OUT_OF_MEMORY}, which
 * Offload handles as the driver's out of memory: on a device allocation it trims its
 * cache and retries once; on page-locked host staging it throws
 * {@code HostStagingOutOfMemoryException}).
 */
public final class FaultInjectingBackend implements Backend {

	/**
	 * The operations faults can be injected into.
	 */
	public enum Operation {

		/** Creating a stream. */
		CREATE_STREAM,
		/** Creating an event. */
		CREATE_EVENT,
		/** Allocating device memory. */
		ALLOCATE,
		/**
		 * Allocating page-locked host memory, which Offload stages copies through; its
		 * out of memory is not retried.
		 */
		ALLOCATE_HOST,
		/** Enqueueing a copy. */
		COPY,
		/** Enqueueing a fill. */
		FILL,
		/**
		 * A kernel launch: its work fails, reported by the stream's next query or
		 * synchronize.
		 */
		LAUNCH,
		/** Querying a stream. */
		QUERY,
		/**
		 * A library's call on a stream (a cuBLAS operation, or its host emulation): it
		 * fails at the call, as a library's error status does, and fails the session's
		 * work.
		 */
		LIBRARY,
		/** Synchronizing a stream. */
		SYNCHRONIZE

	}

	private final Backend delegate;

	/**
	 * Each operation's failure rules, in the order they were set: the first that fires
	 * decides.
	 */
	private final Map<Operation, List<Rule>> rules = new ConcurrentHashMap<>();

	private final Map<Operation, Long> delays = new ConcurrentHashMap<>();

	private final Map<Operation, AtomicLong> calls = new EnumMap<>(Operation.class);

	private final Map<Operation, AtomicLong> injected = new EnumMap<>(Operation.class);

	private final Map<Integer, BackendException> deadDevices = new ConcurrentHashMap<>();

	private final List<BackendDevice> devices;

	private volatile int onlyDevice = -1;

	/** The Xids injected and not yet read by a registry's watcher. */
	private final BlockingQueue<GpuFaultSource.Report> xids = new LinkedBlockingQueue<>();

	private FaultInjectingBackend(Backend delegate) {
		this.delegate = delegate;
		for (Operation operation : Operation.values()) {
			this.calls.put(operation, new AtomicLong());
			this.injected.put(operation, new AtomicLong());
		}
		this.devices = delegate.devices()
			.stream()
			.map((device) -> (BackendDevice) new FaultyDevice(this, device))
			.toList();
	}

	/**
	 * Wraps a backend; no fault is injected until one is configured.
	 * @param delegate the backend that does the work
	 * @return the decorator
	 */
	public static FaultInjectingBackend wrap(Backend delegate) {
		return new FaultInjectingBackend(Objects.requireNonNull(delegate, "delegate must not be null"));
	}

	/**
	 * Makes the {@code n}th call of {@code operation} (counted from now) fail, once.
	 * @param operation the operation
	 * @param n from 1
	 * @return this backend
	 */
	public FaultInjectingBackend failNth(Operation operation, long n) {
		return rule(operation, Rule.nth(counter(this.calls, operation).get() + checkN(n), false));
	}

	/**
	 * Makes the {@code n}th call of {@code operation} (counted from now) fail with a
	 * sticky error that kills its device: every later call on that device fails too.
	 * @param operation the operation
	 * @param n from 1
	 * @return this backend
	 */
	public FaultInjectingBackend failStickyNth(Operation operation, long n) {
		return rule(operation, Rule.nth(counter(this.calls, operation).get() + checkN(n), true));
	}

	/**
	 * Makes the {@code n}th device allocation (counted from now) and the
	 * {@code times - 1} after it fail with out of memory, as a full GPU would. Offload
	 * retries a refused device allocation once after trimming its cache, so {@code times}
	 * of 1 shows the retry and 2 a {@code DeviceOutOfMemoryException}.
	 * @param n from 1
	 * @param times how many allocations in a row fail, from 1
	 * @return this backend
	 */
	public FaultInjectingBackend failOutOfMemoryNth(long n, long times) {
		return failOutOfMemoryNth(Operation.ALLOCATE, n, times);
	}

	/**
	 * Makes the {@code n}th allocation of {@code operation} (counted from now) and the
	 * {@code times - 1} after it fail with out of memory: {@link Operation#ALLOCATE} as a
	 * full GPU would (retried once), {@link Operation#ALLOCATE_HOST} as a host without
	 * page-locked memory would (not retried: the caller gets a
	 * {@code HostStagingOutOfMemoryException}).
	 * @param operation {@link Operation#ALLOCATE} or {@link Operation#ALLOCATE_HOST}
	 * @param n from 1
	 * @param times how many allocations in a row fail, from 1
	 * @return this backend
	 */
	public FaultInjectingBackend failOutOfMemoryNth(Operation operation, long n, long times) {
		if (operation != Operation.ALLOCATE && operation != Operation.ALLOCATE_HOST) {
			throw new IllegalArgumentException("Only ALLOCATE and ALLOCATE_HOST run out of memory, not " + operation);
		}
		if (times < 1) {
			throw new IllegalArgumentException("times must be at least 1, was " + times);
		}
		return rule(operation, Rule.outOfMemory(counter(this.calls, operation).get() + checkN(n), times));
	}

	/**
	 * Makes calls of {@code operation} fail at random with probability {@code rate}.
	 * @param operation the operation
	 * @param rate from 0 to 1
	 * @param seed the random seed, for reproducible runs
	 * @return this backend
	 */
	public FaultInjectingBackend failAtRate(Operation operation, double rate, long seed) {
		if (!(rate >= 0 && rate <= 1)) {
			throw new IllegalArgumentException("rate must be between 0 and 1, was " + rate);
		}
		return rule(operation, Rule.rate(rate, seed));
	}

	/**
	 * Makes every call of {@code operation} take at least {@code delay} longer.
	 * @param operation the operation
	 * @param delay the added time, at least 0
	 * @return this backend
	 */
	public FaultInjectingBackend delay(Operation operation, Duration delay) {
		if (delay == null || delay.isNegative()) {
			throw new IllegalArgumentException("delay must be at least 0, was " + delay);
		}
		this.delays.put(operation, delay.toNanos());
		return this;
	}

	/**
	 * Restricts the rules to one device: calls on the other devices are neither counted
	 * nor failed.
	 * @param deviceId the id of the device the rules apply to
	 * @return this backend
	 * @throws IllegalArgumentException if the backend has no such device
	 */
	public FaultInjectingBackend onDevice(int deviceId) {
		this.onlyDevice = checkDevice(deviceId);
		return this;
	}

	/**
	 * Fails a device now with a sticky error, as a GPU's illegal address or lost device
	 * would: every later call on it throws, with {@code reason} in its message.
	 * @param deviceId the device's id
	 * @param reason the error's text
	 * @return this backend
	 * @throws IllegalArgumentException if the backend has no such device
	 */
	public FaultInjectingBackend failDevice(int deviceId, String reason) {
		checkDevice(deviceId);
		this.deadDevices.putIfAbsent(deviceId,
				new BackendException("failDevice", "INJECTED_STICKY_FAULT", reason, deviceId, true, null));
		return this;
	}

	/**
	 * Makes the GPU report Xid {@code xid} of a device, as NVML would: the registry's
	 * watcher reads it within its poll (at once if it waits) and fails the device for a
	 * fatal Xid (79, 48, 31 ...) or degrades it for a lesser one (63, 92 ...). Xids
	 * injected before the registry is built are read once it starts watching. The
	 * registry watches this backend's reports even where the wrapped backend has none
	 * (the host emulation), unless it was built with {@code watchGpuFaults(false)}.
	 * @param deviceId the device's id
	 * @param xid the Xid number
	 * @return this backend
	 * @throws IllegalArgumentException if the backend has no such device
	 */
	public FaultInjectingBackend injectXid(int deviceId, int xid) {
		checkDevice(deviceId);
		if (xid < 1) {
			throw new IllegalArgumentException("An Xid is at least 1, was " + xid);
		}
		this.xids.add(new GpuFaultSource.Report(deviceId, xid, Instant.now()));
		return this;
	}

	/**
	 * Opens the injected Xids as the registry's fault source, with the wrapped backend's
	 * own (NVML) where it has one.
	 */
	@Override
	public GpuFaultSource openGpuFaultSource(List<BackendDevice> devices) {
		GpuFaultSource delegated;
		String why;
		try {
			delegated = this.delegate.openGpuFaultSource(devices);
			why = delegated.description();
		}
		catch (UnsupportedOperationException ex) {
			delegated = null;
			why = String.valueOf(ex.getMessage());
		}
		return new InjectedXids(this.xids, delegated, why);
	}

	private int checkDevice(int deviceId) {
		if (this.devices.stream().noneMatch((device) -> device.info().id() == deviceId)) {
			throw new IllegalArgumentException("No device " + deviceId + " in the wrapped backend; its devices are "
					+ this.devices.stream().map((device) -> device.info().id()).toList());
		}
		return deviceId;
	}

	/**
	 * Removes every rule; devices already killed by sticky errors stay dead.
	 * @return this backend
	 */
	public FaultInjectingBackend clear() {
		this.rules.clear();
		this.delays.clear();
		return this;
	}

	/**
	 * Returns how many faults were injected into {@code operation}.
	 * @param operation the operation
	 * @return the count
	 */
	public long injected(Operation operation) {
		return counter(this.injected, operation).get();
	}

	/**
	 * Returns how many calls of {@code operation} were made.
	 * @param operation the operation
	 * @return the count
	 */
	public long calls(Operation operation) {
		return counter(this.calls, operation).get();
	}

	private static long checkN(long n) {
		if (n < 1) {
			throw new IllegalArgumentException("n must be at least 1, was " + n);
		}
		return n;
	}

	/**
	 * Adds a failure rule of {@code operation} beside the earlier ones (the 3rd launch
	 * may fail and the 10th kill the device); safe from several threads at once.
	 */
	private FaultInjectingBackend rule(Operation operation, Rule rule) {
		this.rules.computeIfAbsent(operation, (key) -> new CopyOnWriteArrayList<>()).add(rule);
		return this;
	}

	private static AtomicLong counter(Map<Operation, AtomicLong> counters, Operation operation) {
		// The maps hold a counter for every operation from the start.
		return Objects.requireNonNull(counters.get(operation));
	}

	/**
	 * Counts a call and decides its fate: returns the error to inject, or {@code null};
	 * sleeps for a delay rule.
	 */
	@Nullable BackendException onCall(Operation operation, int deviceId, String call) {
		BackendException dead = this.deadDevices.get(deviceId);
		if (dead != null) {
			return new BackendException(call, dead.getErrorName(),
					"the device was killed earlier by an injected " + "sticky fault (" + dead.getMessage() + ")",
					deviceId, true, dead);
		}
		if (this.onlyDevice >= 0 && this.onlyDevice != deviceId) {
			return null;
		}
		long count = counter(this.calls, operation).incrementAndGet();
		long delayNanos = this.delays.getOrDefault(operation, 0L);
		if (delayNanos > 0) {
			// parkNanos may return early (a spurious wake-up, or a permit left by an
			// earlier unpark): park again.
			long end = System.nanoTime() + delayNanos;
			for (long left = delayNanos; left > 0; left = end - System.nanoTime()) {
				LockSupport.parkNanos(left);
			}
		}
		Rule rule = null;
		for (Rule each : this.rules.getOrDefault(operation, List.of())) {
			if (each.fires(count)) {
				rule = each;
				break;
			}
		}
		if (rule == null) {
			return null;
		}
		counter(this.injected, operation).incrementAndGet();
		if (rule.outOfMemory) {
			return new BackendException(call, "INJECTED_ERROR_OUT_OF_MEMORY",
					"injected out of memory on call " + count + " of " + operation, deviceId, false, null);
		}
		if (rule.sticky) {
			BackendException error = new BackendException(call, "INJECTED_STICKY_FAULT",
					"injected sticky fault on call " + count + " of " + operation, deviceId, true, null);
			this.deadDevices.putIfAbsent(deviceId, error);
			return error;
		}
		return new BackendException(call, "INJECTED_FAULT", "injected fault on call " + count + " of " + operation,
				deviceId, false, null);
	}

	@Override
	public String name() {
		return this.delegate.name();
	}

	@Override
	public List<BackendDevice> devices() {
		return this.devices;
	}

	@Override
	public void close() {
		this.delegate.close();
	}

	/**
	 * The Xids of {@link #injectXid}, before those of the wrapped backend's source.
	 */
	private static final class InjectedXids implements GpuFaultSource {

		private final BlockingQueue<Report> xids;

		private final @Nullable GpuFaultSource delegate;

		private final String description;

		InjectedXids(BlockingQueue<Report> xids, @Nullable GpuFaultSource delegate, String delegateDescription) {
			this.xids = xids;
			this.delegate = delegate;
			this.description = "injected Xids (offload-test's FaultInjectingBackend); "
					+ ((delegate != null) ? "and " : "no NVML: ") + delegateDescription;
		}

		@Override
		public @Nullable Report next(Duration timeout) throws InterruptedException {
			if (this.delegate == null) {
				return this.xids.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
			}
			Report injected = this.xids.poll();
			return (injected != null) ? injected : this.delegate.next(timeout);
		}

		@Override
		public String description() {
			return this.description;
		}

		@Override
		public void close() {
			if (this.delegate != null) {
				this.delegate.close();
			}
		}

	}

	/**
	 * When a call fails: on its Nth call, or at a rate; and how much slower every call
	 * is.
	 */
	private static final class Rule {

		final long nth;

		/** How many calls from the {@link #nth} on fail. */
		final long times;

		final boolean outOfMemory;

		final boolean sticky;

		final double rate;

		final @Nullable SplittableRandom random;

		private Rule(long nth, boolean sticky, double rate, @Nullable SplittableRandom random, long times,
				boolean outOfMemory) {
			this.times = times;
			this.outOfMemory = outOfMemory;
			this.nth = nth;
			this.sticky = sticky;
			this.rate = rate;
			this.random = random;
		}

		static Rule nth(long nth, boolean sticky) {
			return new Rule(nth, sticky, 0, null, 1, false);
		}

		static Rule outOfMemory(long nth, long times) {
			return new Rule(nth, false, 0, null, times, true);
		}

		static Rule rate(double rate, long seed) {
			return new Rule(-1, false, rate, new SplittableRandom(seed), 1, false);
		}

		boolean fires(long count) {
			if (this.nth > 0) {
				return count >= this.nth && count < this.nth + this.times;
			}
			if (this.random == null) {
				return false;
			}
			synchronized (this.random) {
				return this.random.nextDouble() < this.rate;
			}
		}

	}

}
