package dev.offload.template;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.blas.BlasLibrary;
import dev.offload.kernel.KernelRef;

/**
 * Runs callbacks in sessions of a {@link DeviceRegistry}: the session bound to the thread
 * (by {@link Offload @Offload} or an enclosing call) if there is one, else a new one that
 * it ends afterwards, as Spring's {@code JdbcTemplate} joins the bound transaction or
 * works on its own. <pre>{@code
 * float[] y = template.execute((session) -> {
 *     Flow flow = Flow.of(session);
 *     DeviceBuffer x = flow.upload(input);
 *     flow.launch(SCALE, LaunchConfig.forThreads(n, 256), n, 2f, x, x);
 *     return flow.downloadFloats(x, n);
 * });
 * }</pre>
 * <ul>
 * <li>{@link #kernel(KernelRef)} builds one typed launch with its copies in and out,
 * without a callback.</li>
 * <li>{@link #execute(SessionCallback)} runs the callback and waits for the work it
 * enqueued: a session of its own is synchronized and closed, a joined one
 * synchronized.</li>
 * <li>{@link #batcher(BatchKernel)} gathers concurrent single-item calls of a kernel into
 * batches, each one launch ({@link Batcher}).</li>
 * <li>{@link #submit(SessionCallback)} runs the callback on the calling thread, which
 * only enqueues work, and returns a future completed with the callback's result once that
 * work is done; no thread waits for it (the device's completion thread polls, see
 * {@link OffloadSession#closeAsync()}, and the future completes on the registry's
 * completion executor, or on a thread that joins it).</li>
 * </ul>
 * A callback that throws reaches the caller with its exception unchanged (for
 * {@code submit}: the future completes with it); a session the template opened is then
 * still ended, its stream discarded if its work failed. Nothing stays bound to the
 * thread.
 */
public class OffloadTemplate {

	private final DeviceRegistry registry;

	private final BatchPolicy batchPolicy;

	private final BatchListener batchListener;

	private final TenantResolver tenantResolver;

	private final List<Batcher<?, ?>> batchers = new CopyOnWriteArrayList<>();

	/**
	 * The names of the batchers not yet closed: each is reserved here before its batcher
	 * starts, so that two batchers never share a name (nor their metrics and thread).
	 */
	private final Set<String> batcherNames = ConcurrentHashMap.newKeySet();

	private volatile BlasLibrary blasLibrary = BlasLibrary.standard();

	/**
	 * Creates a template over the devices of {@code registry}, whose batchers follow
	 * {@link BatchPolicy#DEFAULTS}.
	 * @param registry the registry
	 */
	public OffloadTemplate(DeviceRegistry registry) {
		this(registry, BatchPolicy.DEFAULTS, BatchListener.NONE);
	}

	/**
	 * Creates a template over the devices of {@code registry}.
	 * @param registry the registry
	 * @param batchPolicy the policy of batchers created without one
	 * @param batchListener told of every batch of this template's batchers
	 */
	public OffloadTemplate(DeviceRegistry registry, BatchPolicy batchPolicy, BatchListener batchListener) {
		this(registry, batchPolicy, batchListener, TenantResolver.NONE);
	}

	/**
	 * Creates a template over the devices of {@code registry} whose sessions work for the
	 * tenant of each call: the one its attributes name, else the one
	 * {@code tenantResolver} resolves on the calling thread.
	 * @param registry the registry
	 * @param batchPolicy the policy of batchers created without one
	 * @param batchListener told of every batch of this template's batchers
	 * @param tenantResolver resolves the tenant of calls whose attributes name none
	 */
	public OffloadTemplate(DeviceRegistry registry, BatchPolicy batchPolicy, BatchListener batchListener,
			TenantResolver tenantResolver) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.batchPolicy = Objects.requireNonNull(batchPolicy, "batchPolicy must not be null");
		this.batchListener = Objects.requireNonNull(batchListener, "batchListener must not be null");
		this.tenantResolver = Objects.requireNonNull(tenantResolver, "tenantResolver must not be null");
	}

	/**
	 * Returns the registry.
	 * @return the registry
	 */
	public DeviceRegistry registry() {
		return this.registry;
	}

	/**
	 * Returns what resolves the tenant of calls whose attributes name none.
	 * @return the resolver, {@link TenantResolver#NONE} unless one was given
	 */
	public TenantResolver tenantResolver() {
		return this.tenantResolver;
	}

	/**
	 * Returns the session of this template's registry bound to the thread.
	 * @return the session, or empty
	 */
	public Optional<OffloadSession> currentSession() {
		return OffloadSessionBinding.currentSession()
			.filter((session) -> this.registry.devices().contains(session.device()));
	}

	/**
	 * Runs a callback in the bound session, or in a new one on the least busy device, and
	 * waits for its work.
	 * @param <T> the result's type
	 * @param callback the work
	 * @return the callback's result
	 * @throws RuntimeException what the callback threw, unchanged; or the failure of the
	 * session's work
	 */
	public <T> T execute(SessionCallback<T> callback) {
		return execute(OffloadAttributes.DEFAULTS, callback);
	}

	/**
	 * Runs a callback in the bound session if it is on {@code deviceId}, else in a new
	 * one there, and waits for its work.
	 * @param <T> the result's type
	 * @param deviceId the device's id
	 * @param callback the work
	 * @return the callback's result
	 * @throws dev.offload.NoSuchDeviceException if the registry has no such device
	 */
	public <T> T execute(int deviceId, SessionCallback<T> callback) {
		return execute(OffloadAttributes.DEFAULTS.withDevice(deviceId), callback);
	}

	/**
	 * Runs a callback in the session {@code attributes} ask for and waits for its work: a
	 * new session is synchronized and closed, a joined one synchronized.
	 * @param <T> the result's type
	 * @param attributes the device, priority and a propagation that gives a session
	 * ({@link Propagation#REQUIRED}, {@link Propagation#REQUIRES_NEW} or
	 * {@link Propagation#MANDATORY})
	 * @param callback the work
	 * @return the callback's result
	 * @throws IllegalArgumentException if the propagation may run without a session
	 * @throws IllegalSessionStateException if no session is bound for
	 * {@link Propagation#MANDATORY}
	 */
	public <T> T execute(OffloadAttributes attributes, SessionCallback<T> callback) {
		check(attributes, callback);
		SessionScope scope = SessionScope.enter(this.registry, attributes, this.tenantResolver);
		T result;
		try {
			result = callback.doInSession(scope.requiredSession());
			if (!scope.owned()) {
				scope.requiredSession().synchronize();
			}
		}
		catch (Throwable ex) {
			scope.closeAfter(ex);
			throw ex;
		}
		scope.close();
		return result;
	}

	/**
	 * Runs a callback in the bound session, or in a new one on the least busy device, and
	 * returns at once.
	 * @param <T> the result's type
	 * @param callback the work, run on the calling thread
	 * @return a future completed with the callback's result when its work is done: see
	 * {@link #submit(OffloadAttributes, SessionCallback)}
	 */
	public <T> CompletableFuture<T> submit(SessionCallback<T> callback) {
		return submit(OffloadAttributes.DEFAULTS, callback);
	}

	/**
	 * Runs a callback in the bound session if it is on {@code deviceId}, else in a new
	 * one there, and returns at once.
	 * @param <T> the result's type
	 * @param deviceId the device's id
	 * @param callback the work, run on the calling thread
	 * @return a future completed with the callback's result when its work is done
	 * @throws dev.offload.NoSuchDeviceException if the registry has no such device
	 */
	public <T> CompletableFuture<T> submit(int deviceId, SessionCallback<T> callback) {
		return submit(OffloadAttributes.DEFAULTS.withDevice(deviceId), callback);
	}

	/**
	 * Runs a callback on the calling thread in the session {@code attributes} ask for,
	 * and returns a future that completes when the work it enqueued is done, without a
	 * thread waiting for it:
	 * <ul>
	 * <li>In a new session, the future completes with the callback's result once the
	 * session's work is done and its stream is back in the pool
	 * ({@link OffloadSession#closeAsync()}), or with the work's failure.</li>
	 * <li>In a joined session, the future completes once the work enqueued so far is done
	 * ({@link OffloadSession#whenDone()}: the completion thread watches an event on the
	 * session's own stream, no second stream is borrowed), or with that work's failure,
	 * which also reaches the owner of the session when it ends it.</li>
	 * </ul>
	 * If the callback throws, the future completes with that exception (after a new
	 * session has ended). A new session with a timeout (its own, or the registry's
	 * default) bounds the future: it fails with a
	 * {@link dev.offload.SessionTimeoutException} when the deadline passes before the
	 * work is done, and the stream comes back when the work ends
	 * ({@link OffloadSession#withinDeadline}). The future completes on the registry's
	 * {@linkplain DeviceRegistry#completionExecutor() completion executor}, or on a
	 * thread that waits for it in {@code join()} or {@code get()}; never on the device's
	 * completion thread, so its continuations may block (even on other Offload futures).
	 * @param <T> the result's type
	 * @param attributes the device, priority and a propagation that gives a session
	 * @param callback the work, run on the calling thread
	 * @return the future
	 * @throws IllegalArgumentException if the propagation may run without a session
	 * @throws IllegalSessionStateException if no session is bound for
	 * {@link Propagation#MANDATORY}
	 * @throws dev.offload.DeviceFailedException if the chosen device failed
	 */
	public <T> CompletableFuture<T> submit(OffloadAttributes attributes, SessionCallback<T> callback) {
		return submit(attributes, callback, Function.identity());
	}

	/**
	 * Submits a callback as {@link #submit(OffloadAttributes, SessionCallback)} does, and
	 * maps the future of its work with {@code whenDone} (which sees the work really
	 * ended) before the deadline of a new session bounds the result.
	 */
	<T, R> CompletableFuture<R> submit(OffloadAttributes attributes, SessionCallback<T> callback,
			Function<CompletableFuture<T>, CompletableFuture<R>> whenDone) {
		check(attributes, callback);
		SessionScope scope = SessionScope.enter(this.registry, attributes, this.tenantResolver);
		T result;
		try {
			result = callback.doInSession(scope.requiredSession());
		}
		catch (Throwable ex) {
			CompletableFuture<T> failed = new CompletableFuture<>();
			scope.closeAsync().whenComplete((ignored, closeFailure) -> {
				SessionScope.suppress(ex, closeFailure);
				failed.completeExceptionally(ex);
			});
			return whenDone.apply(failed);
		}
		if (scope.owned()) {
			return scope.withinDeadline(whenDone.apply(scope.closeAfter(CompletableFuture.completedFuture(result))));
		}
		try {
			return whenDone.apply(SessionScope.relay(scope.requiredSession().whenDone(), result));
		}
		catch (RuntimeException ex) {
			return whenDone.apply(CompletableFuture.failedFuture(ex));
		}
	}

	/**
	 * Starts a typed call of a kernel: parameters appended in order with {@code arg},
	 * {@code in} and {@code out}, then {@link KernelCall#run()} or
	 * {@link KernelCall#runAsync()}. <pre>{@code
	 * // __global__ void scale(int n, float a, const float* in, float* out)
	 * float[] y = template.kernel(SCALE).threads(n).arg(n).arg(2f).in(x).outFloats(n).run().floats(0);
	 * }</pre>
	 * @param kernel the kernel, loaded on the session's device if needed
	 * @return the call, to complete and run
	 */
	public KernelCall kernel(KernelRef kernel) {
		return new KernelCall(this, kernel);
	}

	/**
	 * Returns BLAS operations with host arrays in and out, each in the bound session or a
	 * session of its own, through this template's {@linkplain #setBlasLibrary BLAS
	 * library}: <pre>{@code
	 * float[] c = template.blas().sgemm(Transpose.NONE, Transpose.NONE, m, n, k, 1f, a, b);
	 * }</pre>
	 * @return the operations, in the library's math mode
	 */
	public BlasOperations blas() {
		BlasLibrary library = this.blasLibrary;
		return new BlasOperations(this, library, library.mathMode());
	}

	/**
	 * Sets the BLAS library of {@link #blas()}: where cuBLAS is, the workspace of its
	 * handles and the default math mode ({@code offload.blas.*} in Spring).
	 * @param blasLibrary the library; {@link BlasLibrary#standard()} until set
	 */
	public void setBlasLibrary(BlasLibrary blasLibrary) {
		this.blasLibrary = Objects.requireNonNull(blasLibrary, "blasLibrary must not be null");
	}

	/**
	 * Returns the BLAS library of {@link #blas()}.
	 * @return the library
	 */
	public BlasLibrary blasLibrary() {
		return this.blasLibrary;
	}

	/**
	 * Starts a batcher that runs each batch as one call of a kernel, with this template's
	 * batch policy, in sessions of the default attributes. A kernel's batcher is named
	 * after the kernel, for its thread and metrics; while a batcher of this template not
	 * yet closed has that name, {@code name#2}, {@code name#3}...
	 * @param <I> the item's type
	 * @param <O> the result's type for one item
	 * @param kernel how the kernel serves a batch
	 * @return the batcher, running until closed (or its registry closes)
	 * @throws BatcherClosedException if the registry is closed or closing
	 */
	public <I, O> Batcher<I, O> batcher(BatchKernel<I, O> kernel) {
		return batcher(kernel, this.batchPolicy, OffloadAttributes.DEFAULTS);
	}

	/**
	 * Starts a batcher that runs each batch as one call of a kernel, in sessions of the
	 * default attributes.
	 * @param <I> the item's type
	 * @param <O> the result's type for one item
	 * @param kernel how the kernel serves a batch
	 * @param policy how batches are cut
	 * @return the batcher, running until closed (or its registry closes)
	 * @throws BatcherClosedException if the registry is closed or closing
	 */
	public <I, O> Batcher<I, O> batcher(BatchKernel<I, O> kernel, BatchPolicy policy) {
		return batcher(kernel, policy, OffloadAttributes.DEFAULTS);
	}

	/**
	 * Starts a batcher that runs each batch as one call of a kernel, in a session of
	 * {@code attributes}: their device, priority class (and so lane) and timeout apply to
	 * every batch.
	 * @param <I> the item's type
	 * @param <O> the result's type for one item
	 * @param kernel how the kernel serves a batch
	 * @param policy how batches are cut
	 * @param attributes the sessions' attributes; a propagation that opens or joins a
	 * session ({@link Propagation#REQUIRED} or {@link Propagation#REQUIRES_NEW}: the
	 * dispatcher has no session of its own to join)
	 * @return the batcher, running until closed (or its registry closes)
	 * @throws BatcherClosedException if the registry is closed or closing
	 * @throws IllegalArgumentException if the propagation is not one of those
	 */
	public <I, O> Batcher<I, O> batcher(BatchKernel<I, O> kernel, BatchPolicy policy, OffloadAttributes attributes) {
		Objects.requireNonNull(kernel, "kernel must not be null");
		Objects.requireNonNull(attributes, "attributes must not be null");
		if (attributes.propagation() != Propagation.REQUIRED && attributes.propagation() != Propagation.REQUIRES_NEW) {
			throw new IllegalArgumentException("A batcher runs each batch in a session of its own; propagation "
					+ attributes.propagation() + " does not open one (use REQUIRED or REQUIRES_NEW)");
		}
		Batcher.Runner<I, O> runner = (items) -> {
			KernelCall call = kernel(kernel.kernel()).attributes(attributes);
			kernel.gather(items, call);
			return call.runAsync()
				.thenApply((result) -> new Batcher.Slices<O>(result.device().id(),
						(index) -> kernel.slice(result, index)));
		};
		return start(kernel.kernel().name(),
				(unique) -> new Batcher<>(unique, attributes.device(), policy, kernel::validate, runner,
						this.batchListener, this::closed, this::drained, this.registry.completionExecutor(),
						this::currentTenant, this.registry.tenantPolicy()::weightOf));
	}

	/**
	 * Starts a batcher that runs each batch with a function of the application (a flow of
	 * several launches, a {@link Batched @Batched} method's batch method).
	 * @param <I> the item's type
	 * @param <O> the result's type for one item
	 * @param name the batcher's name, for its thread and metrics: {@code name#2},
	 * {@code name#3}... while a batcher of this template not yet closed has it
	 * @param function serves a batch; it must return one result per item
	 * @param policy how batches are cut
	 * @return the batcher, running until closed (or its registry closes)
	 * @throws BatcherClosedException if the registry is closed or closing
	 */
	public <I, O> Batcher<I, O> batcher(String name, BatchFunction<I, O> function, BatchPolicy policy) {
		Objects.requireNonNull(name, "name must not be null");
		Objects.requireNonNull(function, "function must not be null");
		Batcher.Runner<I, O> runner = (items) -> function.apply(items).toCompletableFuture().thenApply((results) -> {
			if (results == null || results.size() != items.size()) {
				throw new IllegalStateException("The batch function of '" + name + "' returned "
						+ ((results != null) ? results.size() : "no") + " results for " + items.size() + " items");
			}
			return new Batcher.Slices<O>(OffloadAttributes.ANY_DEVICE, results::get);
		});
		return start(name, (unique) -> new Batcher<>(unique, OffloadAttributes.ANY_DEVICE, policy, (item) -> {
		}, runner, this.batchListener, this::closed, this::drained, this.registry.completionExecutor(),
				this::currentTenant, this.registry.tenantPolicy()::weightOf));
	}

	/**
	 * Returns the batchers of this template not yet closed.
	 * @return the batchers
	 */
	public List<Batcher<?, ?>> batchers() {
		return List.copyOf(this.batchers);
	}

	/**
	 * Returns the policy of batchers created without one.
	 * @return the policy
	 */
	public BatchPolicy batchPolicy() {
		return this.batchPolicy;
	}

	/**
	 * Starts a batcher under {@code name}, or, while a batcher of this template not yet
	 * closed has that name, under the first of {@code name#2}, {@code name#3}... free.
	 */
	private <I, O> Batcher<I, O> start(String name, Function<String, Batcher<I, O>> batcherNamed) {
		String unique = name;
		for (int n = 2; !this.batcherNames.add(unique); n++) {
			unique = name + "#" + n;
		}
		Batcher<I, O> batcher;
		try {
			batcher = batcherNamed.apply(unique);
		}
		catch (RuntimeException | Error ex) {
			this.batcherNames.remove(unique);
			throw ex;
		}
		this.batchers.add(batcher);
		// The registry drains its batchers before its devices stop lending.
		if (!this.registry.addDrainable(batcher.drainable)) {
			// Closed: the batcher leaves the list, and its name is free again.
			batcher.stopAccepting();
			throw batcher.refusal();
		}
		this.batchListener.batcherStarted(batcher);
		return batcher;
	}

	/** Told once a batcher is closed, perhaps more than once: its name is free again. */
	private void closed(Batcher<?, ?> batcher) {
		if (this.batchers.remove(batcher)) {
			this.batcherNames.remove(batcher.name());
		}
	}

	private void drained(Batcher<?, ?> batcher) {
		this.registry.removeDrainable(batcher.drainable);
	}

	/**
	 * The tenant a call on this thread works for: the bound session's, else the
	 * resolver's.
	 */
	private @Nullable String currentTenant() {
		Optional<OffloadSession> bound = currentSession();
		return bound.isPresent() ? bound.get().tenant() : this.tenantResolver.currentTenant();
	}

	private static void check(OffloadAttributes attributes, SessionCallback<?> callback) {
		Objects.requireNonNull(attributes, "attributes must not be null");
		Objects.requireNonNull(callback, "callback must not be null");
		if (!attributes.propagation().alwaysHasSession()) {
			throw new IllegalArgumentException("OffloadTemplate runs its callback in a session; propagation "
					+ attributes.propagation() + " may run without one (use REQUIRED, REQUIRES_NEW or MANDATORY)");
		}
	}

	@Override
	public String toString() {
		return "OffloadTemplate[" + this.registry + "]";
	}

}
