package dev.offload.template;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;

/**
 * The advice behind {@link Offload @Offload}, usable without Spring: opens, joins or
 * suspends a session as the {@link OffloadAttributes} say, binds it to the thread for the
 * call, and afterwards restores the previous binding and ends a session the call opened
 * (Spring's {@code TransactionInterceptor}).
 * <p>
 * Exceptions from the call reach the caller unchanged; a failure of the session's work
 * that surfaces while ending it is added to them as suppressed. A session that ends after
 * failed work has its stream discarded; otherwise the stream goes back to its pool once
 * the work is done. Nothing stays bound to the thread. <pre>{@code
 * OffloadInvoker invoker = new OffloadInvoker(registry);
 * Result r = invoker.execute(OffloadAttributes.DEFAULTS, () -> service.compute(input));
 * }</pre> {@link #execute(OffloadAttributes, Supplier)} is the entry point for
 * application code (it throws only what the call throws, as Spring's
 * {@code TransactionTemplate.execute}); {@link #invoke(OffloadAttributes, Invocation)}
 * serves advice, whose calls may throw checked exceptions.
 */
public final class OffloadInvoker {

	private final DeviceRegistry registry;

	private final TenantResolver tenantResolver;

	private final PendingStages pendingStages;

	/**
	 * Creates an invoker over the devices of {@code registry}.
	 * @param registry the registry
	 */
	public OffloadInvoker(DeviceRegistry registry) {
		this(registry, TenantResolver.NONE);
	}

	/**
	 * Creates an invoker whose sessions work for the tenant of each call: the one its
	 * attributes name, else the one {@code tenantResolver} resolves on the calling
	 * thread.
	 * @param registry the registry
	 * @param tenantResolver resolves the tenant of calls whose attributes name none
	 */
	public OffloadInvoker(DeviceRegistry registry, TenantResolver tenantResolver) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.tenantResolver = Objects.requireNonNull(tenantResolver, "tenantResolver must not be null");
		this.pendingStages = new PendingStages(registry);
	}

	/**
	 * Returns the registry whose devices the invoker opens sessions on.
	 * @return the registry
	 */
	public DeviceRegistry registry() {
		return this.registry;
	}

	/**
	 * Runs a call in the session {@code attributes} ask for, as
	 * {@link #invoke(OffloadAttributes, Invocation)} does, for calls that throw no
	 * checked exception. Every propagation is allowed; with {@link Propagation#SUPPORTS},
	 * {@link Propagation#NOT_SUPPORTED} and {@link Propagation#NEVER} the call may run
	 * without a session.
	 * @param <T> the result's type
	 * @param attributes the device, propagation and priority
	 * @param call the call; {@link OffloadSessionBinding#currentSession()} gives it its
	 * session
	 * @return the call's result, {@code null} if it returned {@code null}
	 * @throws IllegalSessionStateException if the bound session does not fit the
	 * propagation (the call is not made)
	 * @throws RuntimeException what the call threw, unchanged; or the failure of the
	 * session's work
	 */
	public <T> @Nullable T execute(OffloadAttributes attributes, Supplier<T> call) {
		Objects.requireNonNull(call, "call must not be null");
		try {
			return invoke(attributes, call::get);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			// A Supplier declares no checked exception; one thrown anyway (sneakily) is
			// not swallowed.
			throw new UndeclaredThrowableException(ex);
		}
	}

	/**
	 * Runs a call in the session {@code attributes} ask for. A session the call opened is
	 * synchronized and released when it returns or throws; a joined one is left to its
	 * owner.
	 * @param <T> the result's type
	 * @param attributes the device, propagation and priority
	 * @param invocation the call; {@link OffloadSessionBinding#currentSession()} gives it
	 * its session
	 * @return the call's result, {@code null} if it returned {@code null}
	 * @throws IllegalSessionStateException if the bound session does not fit the
	 * propagation (the call is not made)
	 * @throws Throwable what the call threw, unchanged; or the failure of the session's
	 * work
	 */
	public <T> @Nullable T invoke(OffloadAttributes attributes, Invocation<T> invocation) throws Throwable {
		SessionScope scope = SessionScope.enter(this.registry, attributes, this.tenantResolver);
		@Nullable T result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			scope.closeAfter(ex);
			throw ex;
		}
		scope.close();
		return result;
	}

	/**
	 * Runs a call that returns a stage: a session the call opened is unbound when the
	 * call returns and kept until the stage completes, then closed without blocking; the
	 * returned stage completes after that, when the session's work is done and its stream
	 * is back, with the stage's outcome (or the work's failure). A joined session, no
	 * session, or a {@code null} stage give back the call's stage itself.
	 * <p>
	 * The returned stage completes on the registry's completion executor (or on the
	 * thread that completed the call's stage), never on the device's completion thread. A
	 * session with a timeout bounds it: the stage fails with a
	 * {@link dev.offload.SessionTimeoutException} at the deadline, and the session is
	 * closed once the call's stage completes and its work is done. The registry's close
	 * waits for the stage within its await-termination, then fails the returned stage
	 * with a {@link dev.offload.StreamPoolClosedException} (the session stays open until
	 * the call's stage completes).
	 * @param <T> the stage's value type
	 * @param attributes the device, propagation and priority
	 * @param invocation the call
	 * @return the stage to hand to the caller
	 * @throws IllegalSessionStateException if the bound session does not fit the
	 * propagation (the call is not made)
	 * @throws Throwable what the call threw, unchanged (the session is then closed at
	 * once)
	 */
	public <T> @Nullable CompletionStage<T> invokeAsync(OffloadAttributes attributes,
			Invocation<? extends CompletionStage<T>> invocation) throws Throwable {
		SessionScope scope = SessionScope.enter(this.registry, attributes, this.tenantResolver);
		@Nullable CompletionStage<T> stage;
		try {
			stage = invocation.proceed();
		}
		catch (Throwable ex) {
			scope.closeAfter(ex);
			throw ex;
		}
		if (!scope.owned() || stage == null) {
			scope.close();
			return stage;
		}
		OffloadSession session = scope.requiredSession();
		CompletableFuture<T> result = scope.closeAfter(stage);
		this.pendingStages.track(result, session);
		return scope.withinDeadline(result);
	}

	/**
	 * Returns the session of this invoker's registry bound to the thread.
	 * @return the session, or empty
	 */
	public Optional<OffloadSession> currentSession() {
		return OffloadSessionBinding.currentSession()
			.filter((session) -> this.registry.devices().contains(session.device()));
	}

	/**
	 * A call to run in a session, such as a method invocation.
	 *
	 * @param <T> the result's type
	 */
	@FunctionalInterface
	public interface Invocation<T> {

		/**
		 * Makes the call.
		 * @return its result
		 * @throws Throwable anything the call throws
		 */
		@Nullable T proceed() throws Throwable;

	}

}
