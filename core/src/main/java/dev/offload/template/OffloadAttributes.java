package dev.offload.template;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import dev.offload.StreamPriority;
import dev.offload.TenantPolicy;

/**
 * What an {@link Offload @Offload} call or an {@link OffloadTemplate} callback asks of
 * its session: the device, the {@link Propagation}, the priority of a new session's
 * stream and its timeout (Spring's {@code TransactionDefinition}).
 *
 * @param device the device's id, or {@link #ANY_DEVICE} for the least busy one
 * @param propagation how the call relates to the bound session
 * @param priority the priority class of a new session's stream
 * @param timeout the timeout of a new session (see
 * {@link dev.offload.Device#openSession(StreamPriority, Duration)}), or {@code null} for
 * the registry's default; a joined session keeps its own
 * @param memoryBytes the device memory a new session reserves when it opens, or 0
 * @param tenant the tenant of a new session
 * ({@link dev.offload.SessionOptions#tenant()}), or {@code null} to ask the template's
 * {@link TenantResolver}; a joined session keeps its own
 */
public record OffloadAttributes(int device, Propagation propagation, StreamPriority priority,
		@Nullable Duration timeout, long memoryBytes, @Nullable String tenant) {

	private static final String DURATION_SPELLING = "use a number with a unit (ns, us, ms, s, m, h, d) such as "
			+ "500ms or 2s, or an ISO-8601 duration such as PT2S";

	private static final Pattern SIMPLE_DURATION = Pattern.compile("^([+]?\\d+)(ns|us|ms|s|m|h|d)$");

	/**
	 * The device value that picks the least busy device.
	 */
	public static final int ANY_DEVICE = -1;

	/**
	 * The defaults: any device, {@link Propagation#REQUIRED},
	 * {@link StreamPriority#NORMAL}.
	 */
	public static final OffloadAttributes DEFAULTS = new OffloadAttributes(ANY_DEVICE, Propagation.REQUIRED,
			StreamPriority.NORMAL, null, 0, null);

	/**
	 * Checks the values.
	 * @param device the device's id, or {@link #ANY_DEVICE} for the least busy one
	 * @param propagation how the call relates to the bound session
	 * @param priority the priority class of a new session's stream
	 * @param timeout the timeout of a new session, or {@code null} for the registry's
	 * default
	 * @param memoryBytes the device memory a new session reserves in its device's budget
	 * when it opens, or 0 for none
	 * @param tenant the tenant of a new session, or {@code null} for the resolver's
	 * @throws IllegalArgumentException if the device is below -1, the propagation or
	 * priority {@code null}, the timeout not positive or the memory negative
	 * @throws dev.offload.InvalidSettingException if the tenant is not a tenant name
	 */
	public OffloadAttributes {
		if (memoryBytes < 0) {
			throw new IllegalArgumentException("memoryBytes must be at least 0, was " + memoryBytes);
		}
		if (device < ANY_DEVICE) {
			throw new IllegalArgumentException(
					"device must be -1 (the least busy device) or a device id, was " + device);
		}
		if (propagation == null) {
			throw new IllegalArgumentException("propagation must not be null");
		}
		if (priority == null) {
			throw new IllegalArgumentException("priority must not be null");
		}
		if (!isPositive(timeout)) {
			throw new IllegalArgumentException("timeout must be positive (or null for the default), was " + timeout);
		}
		if (tenant != null) {
			TenantPolicy.checkTenant(tenant, "tenant");
		}
	}

	/**
	 * Creates attributes without a tenant of their own.
	 * @param device the device's id, or {@link #ANY_DEVICE} for the least busy one
	 * @param propagation how the call relates to the bound session
	 * @param priority the priority class of a new session's stream
	 * @param timeout the timeout of a new session, or {@code null} for the registry's
	 * default
	 * @param memoryBytes the device memory a new session reserves when it opens, or 0
	 * @throws IllegalArgumentException if a value is out of range
	 */
	public OffloadAttributes(int device, Propagation propagation, StreamPriority priority, @Nullable Duration timeout,
			long memoryBytes) {
		this(device, propagation, priority, timeout, memoryBytes, null);
	}

	// The one rule for a timeout, whether written as a Duration or as @Offload's text.
	private static boolean isPositive(@Nullable Duration timeout) {
		return timeout == null || !(timeout.isNegative() || timeout.isZero());
	}

	/**
	 * Creates attributes without a timeout of their own.
	 * @param device the device's id, or {@link #ANY_DEVICE} for the least busy one
	 * @param propagation how the call relates to the bound session
	 * @param priority the priority class of a new session's stream
	 * @throws IllegalArgumentException if the device is below -1 or a value is
	 * {@code null}
	 */
	public OffloadAttributes(int device, Propagation propagation, StreamPriority priority) {
		this(device, propagation, priority, null, 0, null);
	}

	/**
	 * Creates attributes without a memory estimate.
	 * @param device the device's id, or {@link #ANY_DEVICE} for the least busy one
	 * @param propagation how the call relates to the bound session
	 * @param priority the priority class of a new session's stream
	 * @param timeout the timeout of a new session, or {@code null} for the registry's
	 * default
	 * @throws IllegalArgumentException if a value is out of range
	 */
	public OffloadAttributes(int device, Propagation propagation, StreamPriority priority, Duration timeout) {
		this(device, propagation, priority, timeout, 0, null);
	}

	/**
	 * Returns a copy whose new sessions reserve device memory when they open.
	 * @param bytes the memory the session's buffers are expected to take, or 0 for none
	 * @return the new attributes
	 */
	public OffloadAttributes withMemoryBytes(long bytes) {
		return new OffloadAttributes(this.device, this.propagation, this.priority, this.timeout, bytes, this.tenant);
	}

	/**
	 * Returns the attributes of an annotation.
	 * @param offload the annotation
	 * @return its attributes
	 * @throws IllegalArgumentException if its device is below -1, its timeout is not a
	 * positive duration or its tenant not a tenant name
	 */
	public static OffloadAttributes of(Offload offload) {
		return new OffloadAttributes(offload.device(), offload.propagation(), offload.priority(),
				parseTimeout(offload.timeout()), offload.memoryBytes(),
				offload.tenant().isEmpty() ? null : offload.tenant());
	}

	/**
	 * Parses the {@link Offload#timeout()} of an annotation: a number with a unit
	 * ({@code 500ms}, {@code 2s}, {@code 1m}; units {@code ns}, {@code us}, {@code ms},
	 * {@code s}, {@code m}, {@code h}, {@code d}) or an ISO-8601 duration ({@code PT2S}).
	 * @param value the text; empty for none
	 * @return the timeout, or {@code null} if {@code value} is empty
	 * @throws IllegalArgumentException naming the value if it is not a positive duration
	 */
	public static @Nullable Duration parseTimeout(@Nullable String value) {
		return parse(value, true, "@Offload timeout ");
	}

	/**
	 * Parses a duration spelled as {@link #parseTimeout} takes it, where 0 is allowed too
	 * (a {@code @Batched} method's {@code maxDelay}).
	 * @param value the text; empty for none
	 * @return the duration, or {@code null} if {@code value} is empty
	 * @throws IllegalArgumentException naming the value if it is not a duration of 0 or
	 * more
	 */
	public static @Nullable Duration parseDuration(@Nullable String value) {
		return parse(value, false, "");
	}

	/**
	 * Parses {@code value}, refusing a negative duration, and 0 too where
	 * {@code positive}; the refusal names {@code what} and the value.
	 */
	private static @Nullable Duration parse(@Nullable String value, boolean positive, String what) {
		if (value == null || value.isBlank()) {
			return null;
		}
		Duration parsed;
		try {
			parsed = parse(value);
		}
		catch (DateTimeParseException | ArithmeticException ex) {
			throw refused(what, value, positive, ex);
		}
		if (positive ? !isPositive(parsed) : parsed.isNegative()) {
			throw refused(what, value, positive, null);
		}
		return parsed;
	}

	private static IllegalArgumentException refused(String what, String value, boolean positive,
			@Nullable Exception cause) {
		String expected = positive ? "a positive duration" : "a duration of 0 or more";
		return new IllegalArgumentException(what + "'" + value + "' is not " + expected + "; " + DURATION_SPELLING,
				cause);
	}

	private static Duration parse(String value) {
		String text = value.trim();
		Matcher simple = SIMPLE_DURATION.matcher(text.toLowerCase(Locale.ROOT));
		if (!simple.matches()) {
			return Duration.parse(text);
		}
		long amount = Long.parseLong(simple.group(1));
		return switch (simple.group(2)) {
			case "ns" -> Duration.ofNanos(amount);
			case "us" -> Duration.ofNanos(Math.multiplyExact(amount, 1000L));
			case "ms" -> Duration.ofMillis(amount);
			case "s" -> Duration.ofSeconds(amount);
			case "m" -> Duration.ofMinutes(amount);
			case "h" -> Duration.ofHours(amount);
			default -> Duration.ofDays(amount);
		};
	}

	/**
	 * Tells whether any device will do.
	 * @return {@code true} if {@link #device()} is {@link #ANY_DEVICE}
	 */
	public boolean anyDevice() {
		return this.device == ANY_DEVICE;
	}

	/**
	 * Returns a copy on another device.
	 * @param deviceId the device's id, or {@link #ANY_DEVICE}
	 * @return the new attributes
	 */
	public OffloadAttributes withDevice(int deviceId) {
		return new OffloadAttributes(deviceId, this.propagation, this.priority, this.timeout, this.memoryBytes,
				this.tenant);
	}

	/**
	 * Returns a copy with another propagation.
	 * @param value the propagation
	 * @return the new attributes
	 */
	public OffloadAttributes withPropagation(Propagation value) {
		return new OffloadAttributes(this.device, value, this.priority, this.timeout, this.memoryBytes, this.tenant);
	}

	/**
	 * Returns a copy with another priority.
	 * @param value the priority
	 * @return the new attributes
	 */
	public OffloadAttributes withPriority(StreamPriority value) {
		return new OffloadAttributes(this.device, this.propagation, value, this.timeout, this.memoryBytes, this.tenant);
	}

	/**
	 * Returns a copy with another timeout for new sessions.
	 * @param value the timeout, or {@code null} for the registry's default
	 * @return the new attributes
	 */
	public OffloadAttributes withTimeout(Duration value) {
		return new OffloadAttributes(this.device, this.propagation, this.priority, value, this.memoryBytes,
				this.tenant);
	}

	/**
	 * Returns a copy whose new sessions work for another tenant.
	 * @param value the tenant, or {@code null} to ask the template's
	 * {@link TenantResolver}
	 * @return the new attributes
	 * @throws dev.offload.InvalidSettingException if the name is not a tenant name
	 */
	public OffloadAttributes withTenant(@Nullable String value) {
		return new OffloadAttributes(this.device, this.propagation, this.priority, this.timeout, this.memoryBytes,
				value);
	}

}
