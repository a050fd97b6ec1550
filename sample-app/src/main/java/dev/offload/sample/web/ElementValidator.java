package dev.offload.sample.web;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;

import org.springframework.stereotype.Component;

/**
 * Validates the elements of a list one at a time, keeping the first
 * {@link ApiErrors#MAX_ERRORS} violations and counting the others: memory stays bounded
 * whatever the list holds, and time is one pass over it. Bean Validation's cascade
 * ({@code List<@Valid T>}) would instead build every violation of every element before
 * the first is reported.
 */
@Component
class ElementValidator {

	private final Validator validator;

	ElementValidator(Validator validator) {
		this.validator = validator;
	}

	/**
	 * Validates each element.
	 * @param property the list's name in the request, such as {@code options}
	 * @param elements the elements
	 * @throws InvalidValuesException if an element is {@code null} or invalid
	 */
	void validate(String property, List<?> elements) {
		List<InvalidValues.InvalidValue> listed = new ArrayList<>();
		int count = 0;
		for (int i = 0; i < elements.size(); i++) {
			Object element = elements.get(i);
			String path = property + "[" + i + "]";
			if (element == null) {
				count += list(listed, new InvalidValues.InvalidValue(path, "must not be null"));
				continue;
			}
			for (InvalidValues.InvalidValue value : violations(path, element)) {
				count += list(listed, value);
			}
		}
		if (count > 0) {
			throw new InvalidValuesException(new InvalidValues(List.copyOf(listed), count));
		}
	}

	private List<InvalidValues.InvalidValue> violations(String path, Object element) {
		List<InvalidValues.InvalidValue> values = new ArrayList<>();
		for (ConstraintViolation<Object> violation : this.validator.validate(element)) {
			values
				.add(new InvalidValues.InvalidValue(path + "." + violation.getPropertyPath(), violation.getMessage()));
		}
		values.sort(Comparator.comparing(InvalidValues.InvalidValue::field)
			.thenComparing(InvalidValues.InvalidValue::message));
		return values;
	}

	private static int list(List<InvalidValues.InvalidValue> listed, InvalidValues.InvalidValue value) {
		if (listed.size() < ApiErrors.MAX_ERRORS) {
			listed.add(value);
		}
		return 1;
	}

}
