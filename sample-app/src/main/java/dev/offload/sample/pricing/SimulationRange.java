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
 * A {@link MonteCarloRequest}'s {@code volatility * sqrt(maturity)} must be at most
 * {@value #MAX_SPREAD}, where the simulation's standard error stays within a few percent
 * of the price at the largest number of paths; the violation names the {@code volatility}
 * field. A request with either value missing is left to {@code @NotNull}.
 */
@Documented
@Constraint(validatedBy = SimulationRange.Validator.class)
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface SimulationRange {

	/** The largest {@code volatility * sqrt(maturity)} a simulation is run for. */
	double MAX_SPREAD = 3;

	/**
	 * The message.
	 * @return the message
	 */
	String message() default "must be at most 3 / sqrt(maturity) for a Monte Carlo estimate";

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
	 * Checks a {@link MonteCarloRequest}.
	 */
	class Validator implements ConstraintValidator<SimulationRange, MonteCarloRequest> {

		@Override
		public boolean isValid(MonteCarloRequest request, ConstraintValidatorContext context) {
			if (request == null || request.volatility() == null || request.maturity() == null
					|| request.volatility() * Math.sqrt(request.maturity()) <= MAX_SPREAD) {
				return true;
			}
			context.disableDefaultConstraintViolation();
			context.buildConstraintViolationWithTemplate(context.getDefaultConstraintMessageTemplate())
				.addPropertyNode("volatility")
				.addConstraintViolation();
			return false;
		}

	}

}
