package dev.offload.spring.aop;

import org.jspecify.annotations.Nullable;

/**
 * An {@link dev.offload.template.Offload @Offload} annotation of a bean cannot be used,
 * such as a timeout that is no duration; found when the bean is created, so that the
 * application does not start and then fail on each call.
 */
public class InvalidOffloadAnnotationException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final String beanName;

	private final String method;

	private final @Nullable String timeout;

	/**
	 * Creates an exception.
	 * @param beanName the name of the bean whose method is annotated
	 * @param method the annotated method, such as {@code PricingService.price(List)}
	 * @param timeout the annotation's timeout as written, if it is what is invalid, else
	 * {@code null}
	 * @param cause what the annotation's attributes were refused with
	 */
	public InvalidOffloadAnnotationException(String beanName, String method, @Nullable String timeout,
			IllegalArgumentException cause) {
		super("@Offload on " + method + " of bean '" + beanName + "' is invalid: " + cause.getMessage(), cause);
		this.beanName = beanName;
		this.method = method;
		this.timeout = timeout;
	}

	/**
	 * Returns the name of the bean whose method is annotated.
	 * @return the bean name
	 */
	public String getBeanName() {
		return this.beanName;
	}

	/**
	 * Returns the annotated method.
	 * @return the method, such as {@code PricingService.price(List)}
	 */
	public String getMethod() {
		return this.method;
	}

	/**
	 * Returns the timeout as written, when it is what is invalid.
	 * @return the timeout, or {@code null} if another attribute is invalid
	 */
	public @Nullable String getTimeout() {
		return this.timeout;
	}

	/**
	 * Returns what to do about it, for a failure analysis.
	 * @return the action
	 */
	public String getAction() {
		if (this.timeout != null) {
			return "Set the timeout of @Offload on " + this.method + " to a positive duration with a unit (ns, us, "
					+ "ms, s, m, h, d) such as 500ms or 2s, or an ISO-8601 duration such as PT2S; or remove it for "
					+ "the default, 'offload.session.timeout'.";
		}
		Throwable cause = getCause();
		return "Correct the @Offload annotation on " + this.method + ": "
				+ ((cause != null) ? cause.getMessage() : getMessage()) + ".";
	}

}
