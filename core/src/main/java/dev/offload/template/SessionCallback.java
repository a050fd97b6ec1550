package dev.offload.template;

import dev.offload.OffloadSession;

/**
 * Work that {@link OffloadTemplate} runs in a session. It may throw unchecked exceptions,
 * which reach the caller unchanged; wrap checked ones (as Spring's
 * {@code TransactionCallback} asks).
 *
 * @param <T> the result's type
 */
@FunctionalInterface
public interface SessionCallback<T> {

	/**
	 * Enqueues work on the session and returns a result. The session is the template's to
	 * close: do not close it. Results the work copies to host buffers are complete only
	 * after {@link OffloadSession#synchronize()}, or when
	 * {@link OffloadTemplate#execute(SessionCallback)} returns.
	 * @param session the session, bound to the thread for the call
	 * @return the result, or {@code null}
	 */
	T doInSession(OffloadSession session);

}
