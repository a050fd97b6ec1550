package dev.offload.sample.web;

import java.time.Duration;
import java.util.List;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.validation.Valid;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.offload.sample.risk.InvalidRiskInputException;
import dev.offload.sample.risk.ScenarioRisk;
import dev.offload.sample.risk.ScenarioRiskInput;
import dev.offload.sample.risk.ScenarioRiskRequest;
import dev.offload.sample.risk.ScenarioRiskService;

/**
 * The portfolio API: scenario risk, whose P&amp;L matrix is one matrix product on the
 * device.
 */
@RestController
@RequestMapping("/api/portfolio")
public class PortfolioController {

	private final ScenarioRiskService risk;

	private final ElementValidator elements;

	PortfolioController(ScenarioRiskService risk, ElementValidator elements) {
		this.risk = risk;
		this.elements = elements;
	}

	/**
	 * Computes a portfolio's value at risk and expected shortfall over a scenario set,
	 * synchronously. The sizes are validated first, then the positions one by one, then
	 * the shapes and values. The request was admitted ({@code sample.risk.*}) once its
	 * body arrived; its deadline started then, and what is left of it bounds the device's
	 * work.
	 * @param request the portfolio, the scenarios and the confidence level
	 * @param http the HTTP request, which carries the deadline
	 * @return the risk
	 */
	@PostMapping("/scenario-risk")
	public ScenarioRisk scenarioRisk(@Valid @RequestBody ScenarioRiskRequest request, HttpServletRequest http) {
		this.elements.validate("positions", request.positions());
		ScenarioRiskInput input;
		try {
			input = ScenarioRiskInput.of(request);
		}
		catch (InvalidRiskInputException ex) {
			List<InvalidValues.InvalidValue> listed = ex.listed()
				.stream()
				.map((problem) -> new InvalidValues.InvalidValue(problem.field(), problem.message()))
				.toList();
			throw new InvalidValuesException(new InvalidValues(listed, ex.count()));
		}
		Duration left = PriceAdmission.remaining(http);
		if (left != null && (left.isNegative() || left.isZero())) {
			throw new ShedException("The scenario risk deadline passed while the request was read");
		}
		return this.risk.assess(input, left);
	}

}
