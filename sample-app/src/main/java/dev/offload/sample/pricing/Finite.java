package dev.offload.sample.pricing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;

/**
 * The annotated number must be finite: not infinite ({@code 1e400} parses as infinity)
 * and not NaN, which the other bounds let through and which would price to
 * {@code Infinity} or {@code NaN}. {@code null} is valid (use {@code @NotNull}).
 */
@Documented
@Constraint(validatedBy = Finite.Validator.class)
@Target({ ElementType.FIELD, ElementType.PARAMETER, ElementType.RECORD_COMPONENT, ElementType.TYPE_USE })
@Retention(RetentionPolicy.RUNTIME)
public @interface Finite {

	/**
	 * The message.
	 * @return the message
	 */
	String message() default "must be a finite number";

	/**
	 * The validation groups.
	 * @return the groups
	 */
	Class<?>[] groups() default {};

	/**
	 * The payload.
	 * @return the payload
	 */
	Class<? extends Payload>[] payload() default {};

	/**
	 * Checks a {@link Double}.
	 */
	class Validator implements ConstraintValidator<Finite, Double> {

		@Override
		public boolean isValid(Double value, ConstraintValidatorContext context) {
			return value == null || Double.isFinite(value);
		}

	}

}
