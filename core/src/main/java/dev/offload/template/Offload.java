package dev.offload.template;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.offload.StreamPriority;

/**
 * Runs a method in an {@link dev.offload.OffloadSession} bound to the thread for the
 * call: the session is opened or joined according to {@link #propagation()},
 * {@link OffloadTemplate} calls inside the method join it, and a session the call opened
 * is synchronized and released when the method returns or throws. A method returning a
 * {@link java.util.concurrent.CompletionStage} or
 * {@link java.util.concurrent.CompletableFuture} keeps its session until that stage
 * completes and the session's work is done. A method returning a stage of another type (a
 * subclass of {@code CompletableFuture}, say) keeps its session until its stage completes
 * too, and its callers get the stage as it returned it, which may complete before the
 * session's stream is back and carries no timeout of the session's.
 * <p>
 * On a class, it applies to each method of the class. In a Spring application the advice
 * applies to calls through the bean's proxy only: a call from the bean to itself, or from
 * its {@code @PostConstruct} method, runs without it. Outside Spring,
 * {@link OffloadInvoker} runs the same logic.
 */
@Target({ ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface Offload {

	/**
	 * The device to open a session on, or {@link OffloadAttributes#ANY_DEVICE} (the
	 * default) for the least busy one. A bound session of another device does not match
	 * (see {@link Propagation}).
	 * @return the device's id, or -1
	 */
	int device() default OffloadAttributes.ANY_DEVICE;

	/**
	 * How the call relates to the session bound to the thread.
	 * @return the propagation, {@link Propagation#REQUIRED} by default
	 */
	Propagation propagation() default Propagation.REQUIRED;

	/**
	 * The priority class of the stream of a session the call opens; a joined session
	 * keeps its own.
	 * @return the priority, {@link StreamPriority#NORMAL} by default
	 */
	StreamPriority priority() default StreamPriority.NORMAL;

	/**
	 * The timeout of a session the call opens, counted from its opening: the call's waits
	 * for a stream and for the session's work end by then with a
	 * {@link dev.offload.SessionTimeoutException}. A number with a unit ({@code "500ms"},
	 * {@code "2s"}, {@code "1m"}) or an ISO-8601 duration ({@code "PT2S"}); a joined
	 * session keeps its own.
	 * @return the timeout, or empty (the default) for the registry's default session
	 * timeout
	 */
	String timeout() default "";

	/**
	 * The device memory the call's buffers are expected to take: a session the call opens
	 * reserves it in its device's budget before the method runs (waiting under its
	 * priority and deadline, or failing with
	 * {@link dev.offload.MemoryBudgetExceededException}); a joined session keeps what it
	 * has.
	 * @return the bytes, or 0 (the default) to reserve as buffers are allocated
	 */
	long memoryBytes() default 0;

	/**
	 * The tenant a session the call opens works for: its waits for a stream or for memory
	 * are served by the tenant's share ({@link dev.offload.TenantPolicy}). A joined
	 * session keeps its own.
	 * @return the tenant, or empty (the default) to ask the {@link TenantResolver}
	 */
	String tenant() default "";

}
