package dev.offload.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

import dev.offload.blas.MathMode;

import dev.offload.StreamPriority;
import dev.offload.compile.KernelCache;

/**
 * Configuration of Offload's devices, stream pools and shutdown, bound from
 * {@code offload.*}. <pre>{@code
 * offload:
 *   backend: auto
 *   stream-pool:
 *     initial-size: 32
 *     max-size: 256
 *     lanes:
 *       normal:
 *         max-sessions: 24
 *         borrow-timeout: 2s
 *   session:
 *     timeout: 5s
 *   devices-config:
 *     "1":
 *       stream-pool:
 *         initial-size: 64
 * }</pre>
 */
// Unknown keys fail binding, so that a misspelt setting is reported rather than silently
// ignored.
@ConfigurationProperties(prefix = "offload", ignoreUnknownFields = false)
public class OffloadProperties {

	/**
	 * The value of {@link #getDevices() devices} that selects every device.
	 */
	public static final String ALL_DEVICES = "all";

	/**
	 * Backend that runs the work: 'auto' uses CUDA when a usable GPU is present (through
	 * the binding 'offload.cuda.binding' chooses), else the host emulation.
	 */
	private BackendType backend = BackendType.AUTO;

	/**
	 * Settings of the CUDA backend.
	 */
	private final Cuda cuda = new Cuda();

	/**
	 * Devices to use: 'all', or a list of device ids.
	 */
	private List<String> devices = new ArrayList<>(List.of(ALL_DEVICES));

	/**
	 * Stream pool settings of every device.
	 */
	private final Pool streamPool = new Pool();

	/**
	 * Per-device settings, keyed by device id, such as
	 * 'offload.devices-config.1.stream-pool.initial-size'. Each setting left out is taken
	 * from the shared one, such as 'offload.stream-pool.initial-size'.
	 */
	private final Map<String, DeviceConfig> devicesConfig = new LinkedHashMap<>();

	/**
	 * Emulated devices of the host backend.
	 */
	private final Host host = new Host();

	/**
	 * Reuse of freed buffers.
	 */
	private final BufferCache bufferCache = new BufferCache();

	/**
	 * Each device's memory budget.
	 */
	private final Memory memory = new Memory();

	/**
	 * Behaviour when the application shuts down.
	 */
	private final Shutdown shutdown = new Shutdown();

	/**
	 * Completion of asynchronous work (submit, runAsync, closeAsync).
	 */
	private final Async async = new Async();

	/**
	 * How device state shows in the application's health probes.
	 */
	private final Health health = new Health();

	/**
	 * Settings of modules from CUDA C source, which the CUDA backend compiles with NVRTC
	 * for each device's architecture before the application is ready.
	 */
	public static class Kernels {

		/**
		 * Directory where compiled kernels persist across restarts (a volume in
		 * Kubernetes), so that a restarted application loads them without compiling.
		 * Anyone who can write to it changes the code the GPU runs: give it the
		 * application's own permissions.
		 */
		private Path cacheDir = KernelCache.defaultDirectory();

		/**
		 * Path of NVRTC's library (e.g. '/usr/local/cuda/lib64/libnvrtc.so.13'); when
		 * unset, 'libnvrtc.so.13', 'libnvrtc.so.12' and 'libnvrtc.so' are searched on the
		 * loader's path.
		 */
		private @Nullable String nvrtcLibrary;

		public Path getCacheDir() {
			return this.cacheDir;
		}

		public void setCacheDir(Path cacheDir) {
			this.cacheDir = cacheDir;
		}

		public @Nullable String getNvrtcLibrary() {
			return this.nvrtcLibrary;
		}

		public void setNvrtcLibrary(@Nullable String nvrtcLibrary) {
			this.nvrtcLibrary = nvrtcLibrary;
		}

	}

	/**
	 * Settings of BLAS calls (cuBLAS on a GPU, EJML on the host emulation), such as
	 * template.blas() and Blas.on(session) through the template's library.
	 */
	public static class Blas {

		/**
		 * Path of cuBLAS's library (e.g. '/usr/local/cuda/lib64/libcublas.so.13'); when
		 * unset, 'libcublas.so.13' and 'libcublas.so.12' are searched on the loader's
		 * path.
		 */
		private @Nullable String library;

		/**
		 * Device memory each cuBLAS handle (one per pooled stream that calls BLAS) takes
		 * as its workspace, counted in the memory budget. 0 for none. Unset, what cuBLAS
		 * recommends for the device: 32MB from Hopper (compute capability 9.0) on, 4MB
		 * before.
		 */
		private @Nullable DataSize workspaceSize;

		/**
		 * Math mode of calls that do not ask for another: 'default', 'tf32' (TF32 tensor
		 * cores for single precision) or 'pedantic'.
		 */
		private MathMode mathMode = MathMode.DEFAULT;

		public @Nullable String getLibrary() {
			return this.library;
		}

		public void setLibrary(@Nullable String library) {
			this.library = library;
		}

		public @Nullable DataSize getWorkspaceSize() {
			return this.workspaceSize;
		}

		public void setWorkspaceSize(@Nullable DataSize workspaceSize) {
			this.workspaceSize = workspaceSize;
		}

		public MathMode getMathMode() {
			return this.mathMode;
		}

		public void setMathMode(MathMode mathMode) {
			this.mathMode = mathMode;
		}

	}

	/**
	 * Settings of BLAS calls.
	 */
	private final Blas blas = new Blas();

	public Blas getBlas() {
		return this.blas;
	}

	/**
	 * Defaults of the sessions that Offload opens.
	 */
	private final Session session = new Session();

	/**
	 * Time a session may stay open before it is reported as a possible leak. Leak
	 * detection is off when unset.
	 */
	private @Nullable Duration leakDetectionThreshold;

	/**
	 * The @Offload advice.
	 */
	private final Aop aop = new Aop();

	/**
	 * Defaults of the dynamic batchers (OffloadTemplate.batcher and @Batched methods).
	 */
	private final Batching batching = new Batching();

	/**
	 * Settings of the offload-test artifact's test support, such as
	 * offload.test.faults.launch.fail-at (see the testing guide). Read only by that
	 * artifact; ignored elsewhere.
	 */
	private final Map<String, String> test = new LinkedHashMap<>();

	/**
	 * Settings of kernels compiled from CUDA C source.
	 */
	private final Kernels kernels = new Kernels();

	/**
	 * How each device's streams and memory are shared among tenants, and how a web
	 * request's tenant is told.
	 */
	private final Tenants tenants = new Tenants();

	public BackendType getBackend() {
		return this.backend;
	}

	public void setBackend(BackendType backend) {
		this.backend = backend;
	}

	public List<String> getDevices() {
		return this.devices;
	}

	public void setDevices(List<String> devices) {
		this.devices = devices;
	}

	public Pool getStreamPool() {
		return this.streamPool;
	}

	public Map<String, DeviceConfig> getDevicesConfig() {
		return this.devicesConfig;
	}

	public Host getHost() {
		return this.host;
	}

	public BufferCache getBufferCache() {
		return this.bufferCache;
	}

	public Memory getMemory() {
		return this.memory;
	}

	public Shutdown getShutdown() {
		return this.shutdown;
	}

	public Async getAsync() {
		return this.async;
	}

	public Health getHealth() {
		return this.health;
	}

	public Session getSession() {
		return this.session;
	}

	public @Nullable Duration getLeakDetectionThreshold() {
		return this.leakDetectionThreshold;
	}

	public void setLeakDetectionThreshold(@Nullable Duration leakDetectionThreshold) {
		this.leakDetectionThreshold = leakDetectionThreshold;
	}

	public Map<String, String> getTest() {
		return this.test;
	}

	public Batching getBatching() {
		return this.batching;
	}

	public Aop getAop() {
		return this.aop;
	}

	public Kernels getKernels() {
		return this.kernels;
	}

	public Cuda getCuda() {
		return this.cuda;
	}

	public Tenants getTenants() {
		return this.tenants;
	}

	/**
	 * Settings of the CUDA backend.
	 */
	public static class Cuda {

		/**
		 * How the CUDA backend reaches the driver: 'auto' uses the FFM binding (Java's
		 * foreign function API, no JNI) on Java 22+ and JCuda on Java 17-21, or JCuda
		 * where the FFM binding cannot run; 'ffm' or 'jcuda' use that binding only.
		 */
		private CudaBinding binding = CudaBinding.AUTO;

		public CudaBinding getBinding() {
			return this.binding;
		}

		public void setBinding(CudaBinding binding) {
			this.binding = binding;
		}

	}

	/**
	 * The bindings that {@code offload.cuda.binding} names.
	 */
	public enum CudaBinding {

		/**
		 * The FFM binding on Java 22+ where it can run, else JCuda.
		 */
		AUTO,

		/**
		 * Java's foreign function API ({@code offload-backend-ffm}, Java 22+): no JNI,
		 * the driver's own entry points, CUDA 12 and 13 drivers.
		 */
		FFM,

		/**
		 * JCuda's JNI binding (Java 17+, CUDA 12 libraries).
		 */
		JCUDA

	}

	/**
	 * The backends that {@code offload.backend} names.
	 */
	public enum BackendType {

		/**
		 * CUDA when a GPU is usable through a binding {@code offload.cuda.binding}
		 * allows, else the host emulation.
		 */
		AUTO,

		/**
		 * NVIDIA GPUs through the binding {@code offload.cuda.binding} chooses; startup
		 * fails when none is usable.
		 */
		CUDA,

		/**
		 * Devices emulated on the CPU.
		 */
		HOST

	}

	/**
	 * Stream pool settings shared by every device.
	 */
	public static class Pool {

		/**
		 * Number of streams created for a priority class on its first borrow. The pool
		 * doubles from there when every stream is lent.
		 */
		private int initialSize = 32;

		/**
		 * Maximum number of streams a device's pool holds in all, or 0 for no bound.
		 */
		private int maxSize = 256;

		/**
		 * Maximum time a borrow waits for a stream when a bounded pool is full.
		 */
		private Duration borrowTimeout = Duration.ofSeconds(30);

		/**
		 * Limits per priority class ('normal', 'high'): at most 'max-sessions' sessions
		 * of the class hold a stream at once, so that one class cannot take every stream;
		 * a borrow of a full lane waits up to its 'borrow-timeout' (default: the pool's).
		 * Applies to every device.
		 */
		private final Map<StreamPriority, Lane> lanes = new EnumMap<>(StreamPriority.class);

		public int getInitialSize() {
			return this.initialSize;
		}

		public Map<StreamPriority, Lane> getLanes() {
			return this.lanes;
		}

		public void setInitialSize(int initialSize) {
			this.initialSize = initialSize;
		}

		public int getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(int maxSize) {
			this.maxSize = maxSize;
		}

		public Duration getBorrowTimeout() {
			return this.borrowTimeout;
		}

		public void setBorrowTimeout(Duration borrowTimeout) {
			this.borrowTimeout = borrowTimeout;
		}

	}

	/**
	 * The limits of one priority class of every device's stream pool.
	 */
	public static class Lane {

		/**
		 * Maximum number of sessions of this priority class that hold a stream at once.
		 */
		private @Nullable Integer maxSessions;

		/**
		 * Maximum time a borrow of this priority class waits when the lane (or the pool)
		 * is full. Default: the pool's borrow timeout.
		 */
		private @Nullable Duration borrowTimeout;

		public @Nullable Integer getMaxSessions() {
			return this.maxSessions;
		}

		public void setMaxSessions(@Nullable Integer maxSessions) {
			this.maxSessions = maxSessions;
		}

		public @Nullable Duration getBorrowTimeout() {
			return this.borrowTimeout;
		}

		public void setBorrowTimeout(@Nullable Duration borrowTimeout) {
			this.borrowTimeout = borrowTimeout;
		}

	}

	/**
	 * Settings of one device, each overriding the shared one when set.
	 */
	public static class DeviceConfig {

		/**
		 * Stream pool settings of this device.
		 */
		private final PoolOverride streamPool = new PoolOverride();

		public PoolOverride getStreamPool() {
			return this.streamPool;
		}

	}

	/**
	 * Stream pool settings of one device; {@code null} means the shared setting.
	 */
	public static class PoolOverride {

		/**
		 * Number of streams created for a priority class on its first borrow.
		 */
		private @Nullable Integer initialSize;

		/**
		 * Maximum number of streams this device's pool holds in all, or 0 for no bound.
		 */
		private @Nullable Integer maxSize;

		/**
		 * Maximum time a borrow waits for a stream when this device's bounded pool is
		 * full.
		 */
		private @Nullable Duration borrowTimeout;

		public @Nullable Integer getInitialSize() {
			return this.initialSize;
		}

		public void setInitialSize(@Nullable Integer initialSize) {
			this.initialSize = initialSize;
		}

		public @Nullable Integer getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(@Nullable Integer maxSize) {
			this.maxSize = maxSize;
		}

		public @Nullable Duration getBorrowTimeout() {
			return this.borrowTimeout;
		}

		public void setBorrowTimeout(@Nullable Duration borrowTimeout) {
			this.borrowTimeout = borrowTimeout;
		}

	}

	/**
	 * Settings of the host backend's emulated devices.
	 */
	public static class Host {

		/**
		 * Number of devices the host backend emulates.
		 */
		private int deviceCount = 1;

		/**
		 * Names of the emulated devices, one per device. Default: 'Host device N'.
		 */
		private List<String> deviceNames = new ArrayList<>();

		/**
		 * Number of worker threads per emulated device, which bounds how many of its
		 * streams run at once. Default: one per available processor, at least 2.
		 */
		private @Nullable Integer workersPerDevice;

		/**
		 * Memory each emulated device has: it reports it, and its allocations beyond it
		 * fail with out of memory. Default: the JVM's maximum heap size.
		 */
		private @Nullable DataSize memory;

		public int getDeviceCount() {
			return this.deviceCount;
		}

		public void setDeviceCount(int deviceCount) {
			this.deviceCount = deviceCount;
		}

		public List<String> getDeviceNames() {
			return this.deviceNames;
		}

		public void setDeviceNames(List<String> deviceNames) {
			this.deviceNames = deviceNames;
		}

		public @Nullable Integer getWorkersPerDevice() {
			return this.workersPerDevice;
		}

		public void setWorkersPerDevice(@Nullable Integer workersPerDevice) {
			this.workersPerDevice = workersPerDevice;
		}

		public @Nullable DataSize getMemory() {
			return this.memory;
		}

		public void setMemory(@Nullable DataSize memory) {
			this.memory = memory;
		}

	}

	/**
	 * Settings of each device's memory.
	 */
	public static class Memory {

		/**
		 * The device memory that sessions and application-owned buffers may hold at once
		 * on each device: bytes such as '8GB', a share of each device's total memory such
		 * as '80%', or 'unlimited'. A session waits for its bytes under its priority and
		 * deadline, then fails with MemoryBudgetExceededException.
		 */
		private String budget = "90%";

		public String getBudget() {
			return this.budget;
		}

		public void setBudget(String budget) {
			this.budget = budget;
		}

	}

	/**
	 * Settings of each device's cache of freed buffers.
	 */
	public static class BufferCache {

		/**
		 * Memory of freed device buffers that a device keeps for reuse in any case;
		 * beyond it, the cache keeps them while the memory in use plus the cache stay
		 * within offload.memory.budget.
		 */
		private DataSize maxSize = DataSize.ofMegabytes(256);

		public DataSize getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(DataSize maxSize) {
			this.maxSize = maxSize;
		}

	}

	/**
	 * Defaults of the sessions that Offload opens.
	 */
	public static class Session {

		/**
		 * Time from a session's opening after which its caller stops waiting for a stream
		 * or for the session's work and gets a SessionTimeoutException (an asynchronous
		 * caller's future fails with it); the stream goes back to the pool once the work
		 * is done. Applies to sessions opened without a timeout of their own (such as
		 * '@Offload(timeout = "2s")'). No timeout when unset.
		 */
		private @Nullable Duration timeout;

		public @Nullable Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(@Nullable Duration timeout) {
			this.timeout = timeout;
		}

	}

	/**
	 * Settings of the orderly shutdown.
	 */
	public static class Shutdown {

		/**
		 * Maximum time shutdown waits, once new sessions are refused, for the sessions in
		 * flight to end before the devices are released. Sessions still waiting for their
		 * work after it are failed with a StreamPoolClosedException; streams still lent
		 * are never destroyed.
		 */
		private Duration awaitTermination = Duration.ofSeconds(10);

		public Duration getAwaitTermination() {
			return this.awaitTermination;
		}

		public void setAwaitTermination(Duration awaitTermination) {
			this.awaitTermination = awaitTermination;
		}

	}

	/**
	 * Settings of the completion of asynchronous work.
	 */
	public static class Async {

		/**
		 * Name of the Executor (or TaskExecutor) bean that completes the futures of
		 * asynchronous work, where their continuations run (unless a thread waiting for a
		 * future runs them first), such as 'applicationTaskExecutor'. Unset: Offload's
		 * own fork/join pool of 'offload-async' threads, one per CPU, which adds a thread
		 * when a continuation waits for another future.
		 */
		private @Nullable String executor;

		public @Nullable String getExecutor() {
			return this.executor;
		}

		public void setExecutor(@Nullable String executor) {
			this.executor = executor;
		}

	}

	/**
	 * Settings of how device state shows in the application's health probes.
	 */
	public static class Health {

		/**
		 * When the readiness probe refuses traffic because of the devices.
		 */
		private final Readiness readiness = new Readiness();

		/**
		 * The GPU's own fault reports (Xid errors) from NVML.
		 */
		private final Nvml nvml = new Nvml();

		public Readiness getReadiness() {
			return this.readiness;
		}

		public Nvml getNvml() {
			return this.nvml;
		}

	}

	/**
	 * Settings of the watch of the GPU's own fault reports through NVML.
	 */
	public static class Nvml {

		/**
		 * Whether a thread watches NVML's Xid events of the devices (CUDA backends, where
		 * libnvidia-ml.so.1 loads): a fatal Xid fails its device as a sticky error does,
		 * a lesser one marks it degraded.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Settings of the readiness probe ('/actuator/health/readiness'). The liveness probe
	 * never changes for device reasons: a restart is the operator's call.
	 */
	public static class Readiness {

		/**
		 * Whether the readiness probe refuses traffic once a device failed with a sticky
		 * error. The device only comes back when the process restarts.
		 */
		private boolean onDeviceFailure = true;

		/**
		 * Whether the readiness probe refuses traffic while a device's stream pool is
		 * saturated (borrowers wait for a stream of a full bounded pool).
		 */
		private boolean onSaturation = false;

		public boolean isOnDeviceFailure() {
			return this.onDeviceFailure;
		}

		public void setOnDeviceFailure(boolean onDeviceFailure) {
			this.onDeviceFailure = onDeviceFailure;
		}

		public boolean isOnSaturation() {
			return this.onSaturation;
		}

		public void setOnSaturation(boolean onSaturation) {
			this.onSaturation = onSaturation;
		}

	}

	/**
	 * Settings of the {@code @Offload} advice.
	 */
	public static class Aop {

		/**
		 * Whether to proxy beans with @Offload classes or methods so that their calls run
		 * in an Offload session.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Defaults of the dynamic batchers, which gather concurrent single-item calls into
	 * one launch.
	 */
	public static class Batching {

		/**
		 * Most items in one batch; without preferred sizes, a batch is dispatched as soon
		 * as this many wait.
		 */
		private int maxBatchSize = 1024;

		/**
		 * Batch sizes the kernels run best at: a batch is dispatched as soon as the
		 * largest of them wait, and when the delay ends it takes the largest of them that
		 * the queue fills. Empty: everything queued, up to max-batch-size.
		 */
		private List<Integer> preferredBatchSizes = new ArrayList<>();

		/**
		 * How long the first item of a batch waits for others before the batch is
		 * dispatched.
		 */
		private Duration maxDelay = Duration.ofNanos(200_000);

		/**
		 * Most items waiting in one batcher's queue; one more is refused at once with a
		 * BatchQueueFullException.
		 */
		private int maxQueue = 65_536;

		public int getMaxBatchSize() {
			return this.maxBatchSize;
		}

		public void setMaxBatchSize(int maxBatchSize) {
			this.maxBatchSize = maxBatchSize;
		}

		public List<Integer> getPreferredBatchSizes() {
			return this.preferredBatchSizes;
		}

		public void setPreferredBatchSizes(List<Integer> preferredBatchSizes) {
			this.preferredBatchSizes = preferredBatchSizes;
		}

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

		public int getMaxQueue() {
			return this.maxQueue;
		}

		public void setMaxQueue(int maxQueue) {
			this.maxQueue = maxQueue;
		}

	}

	/**
	 * How each device's streams and memory are shared among tenants (the tenant a session
	 * is opened for): waiting tenants are served in proportion to their weights.
	 */
	public static class Tenants {

		/**
		 * Weight of a tenant that 'shares' does not name, from 1 to 1000.
		 */
		private int defaultWeight = 1;

		/**
		 * Most tenants whose statistics and meters are kept by name, those that 'shares'
		 * names first; further tenants are counted as 'other' (each is still served
		 * fairly).
		 */
		private int maxTracked = 64;

		/**
		 * Shares of named tenants, keyed by tenant id, such as
		 * 'offload.tenants.shares.checkout.weight=4' (an id with '.' in brackets:
		 * 'offload.tenants.shares[acme.eu].weight').
		 */
		private final Map<String, Share> shares = new LinkedHashMap<>();

		/**
		 * Request header whose value is the tenant of the sessions a web request opens,
		 * such as 'X-Tenant-Id'. Set it only behind a gateway that authenticates clients
		 * and sets the header. Not read when unset.
		 */
		private @Nullable String header;

		/**
		 * Whether the name of a web request's authenticated principal is the tenant of
		 * the sessions it opens, when the header is not configured or absent.
		 */
		private boolean principal;

		public int getDefaultWeight() {
			return this.defaultWeight;
		}

		public void setDefaultWeight(int defaultWeight) {
			this.defaultWeight = defaultWeight;
		}

		public int getMaxTracked() {
			return this.maxTracked;
		}

		public void setMaxTracked(int maxTracked) {
			this.maxTracked = maxTracked;
		}

		public Map<String, Share> getShares() {
			return this.shares;
		}

		public @Nullable String getHeader() {
			return this.header;
		}

		public void setHeader(@Nullable String header) {
			this.header = header;
		}

		public boolean isPrincipal() {
			return this.principal;
		}

		public void setPrincipal(boolean principal) {
			this.principal = principal;
		}

	}

	/**
	 * One named tenant's share of each device.
	 */
	public static class Share {

		/**
		 * The tenant's weight, from 1 to 1000: while tenants wait, each is served in
		 * proportion to its weight.
		 */
		private int weight = 1;

		/**
		 * Most streams the tenant's sessions hold at once on each device; 0 for no limit.
		 */
		private int maxStreams;

		/**
		 * Most device memory the tenant's sessions hold at once on each device, such as
		 * '2GB'; unset for no limit beyond the memory budget.
		 */
		private @Nullable DataSize maxMemory;

		public int getWeight() {
			return this.weight;
		}

		public void setWeight(int weight) {
			this.weight = weight;
		}

		public int getMaxStreams() {
			return this.maxStreams;
		}

		public void setMaxStreams(int maxStreams) {
			this.maxStreams = maxStreams;
		}

		public @Nullable DataSize getMaxMemory() {
			return this.maxMemory;
		}

		public void setMaxMemory(@Nullable DataSize maxMemory) {
			this.maxMemory = maxMemory;
		}

	}

}
