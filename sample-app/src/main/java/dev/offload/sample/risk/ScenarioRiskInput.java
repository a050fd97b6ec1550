package dev.offload.sample.risk;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/**
 * A scenario risk request checked and laid out for BLAS: matrices column-major, as cuBLAS
 * stores them. Built by {@link #of(ScenarioRiskRequest)}, which checks what Bean
 * Validation cannot: the shapes, finite values, the covariance (symmetric, positive
 * semi-definite) and the bounds on the matrices' products.
 */
public final class ScenarioRiskInput {

	/** The most invalid values listed in one error; all are counted. */
	public static final int MAX_LISTED = 10;

	/** Relative tolerance of the covariance's symmetry. */
	private static final double SYMMETRY_TOLERANCE = 1e-9;

	final int positions;

	final int factors;

	final int scenarios;

	final String[] ids;

	/**
	 * {@code P x F}: position {@code p}'s sensitivity to factor {@code f} at
	 * {@code p + P f}.
	 */
	final double[] sensitivities;

	/** {@code S x F} given shocks, or {@code null} when generated. */
	final double[] shocks;

	/**
	 * The covariance's lower Cholesky factor, {@code F x F}, or {@code null} when given.
	 */
	final double[] cholesky;

	final long seed;

	final double confidence;

	/** The scenarios in the tail: {@code ceil(S (1 - confidence))}, at least 1. */
	final int tail;

	final int worst;

	private ScenarioRiskInput(ScenarioRiskRequest request, int factors, int scenarios, double[] sensitivities,
			double[] shocks, double[] cholesky) {
		this.positions = request.positions().size();
		this.factors = factors;
		this.scenarios = scenarios;
		this.ids = request.positions().stream().map(Position::id).toArray(String[]::new);
		this.sensitivities = sensitivities;
		this.shocks = shocks;
		this.cholesky = cholesky;
		this.seed = (request.generate() != null && request.generate().seed() != null) ? request.generate().seed() : 0;
		this.confidence = (request.confidence() != null) ? request.confidence()
				: ScenarioRiskRequest.DEFAULT_CONFIDENCE;
		this.tail = tail(scenarios, this.confidence);
		this.worst = Math.min(scenarios,
				(request.worst() != null) ? request.worst() : ScenarioRiskRequest.DEFAULT_WORST);
	}

	/**
	 * The number of worst scenarios whose losses make the tail: {@code ceil(S (1 - c))},
	 * at least 1, computed in decimal so that 100 scenarios at 0.95 are a tail of 5, not
	 * 6.
	 */
	static int tail(int scenarios, double confidence) {
		BigDecimal outside = BigDecimal.ONE.subtract(BigDecimal.valueOf(confidence));
		int tail = outside.multiply(BigDecimal.valueOf(scenarios)).setScale(0, RoundingMode.CEILING).intValueExact();
		return Math.max(1, Math.min(scenarios, tail));
	}

	/**
	 * Checks a request whose sizes and scalar fields Bean Validation accepted, and lays
	 * it out.
	 * @param request the request
	 * @return the input
	 * @throws InvalidRiskInputException listing the invalid values
	 */
	public static ScenarioRiskInput of(ScenarioRiskRequest request) {
		Problems problems = new Problems();
		List<Position> positions = request.positions();
		int p = positions.size();
		double[] first = positions.get(0).sensitivities();
		int f = first.length;
		if (f < 1 || f > ScenarioRiskRequest.MAX_FACTORS) {
			problems.add("positions[0].sensitivities", "size must be between 1 and " + ScenarioRiskRequest.MAX_FACTORS);
			throw problems.exception();
		}
		double[] sensitivities = new double[Math.multiplyExact(p, f)];
		for (int i = 0; i < p; i++) {
			double[] row = positions.get(i).sensitivities();
			String field = "positions[" + i + "].sensitivities";
			if (row.length != f) {
				problems.add(field, "must hold " + f + " values, as positions[0].sensitivities does");
				continue;
			}
			for (int j = 0; j < f; j++) {
				if (!Double.isFinite(row[j])) {
					problems.add(field + "[" + j + "]", "must be a finite number");
				}
				sensitivities[i + p * j] = row[j];
			}
		}
		if (request.scenarios() == null && request.generate() == null) {
			problems.add("scenarios", "either scenarios or generate must be given");
			throw problems.exception();
		}
		if (request.scenarios() != null && request.generate() != null) {
			problems.add("generate", "must not be given with scenarios");
			throw problems.exception();
		}
		int s = (request.scenarios() != null) ? request.scenarios().length : request.generate().count();
		String scenarioField = (request.scenarios() != null) ? "scenarios" : "generate.count";
		if (s < 1 || s > ScenarioRiskRequest.MAX_SCENARIOS) {
			problems.add(scenarioField, "size must be between 1 and " + ScenarioRiskRequest.MAX_SCENARIOS);
		}
		checkBounds(problems, scenarioField, s, p, f, request.generate() != null);
		// Every value is checked, whatever else is wrong: what the body holds bounds the
		// work (sample.max-request-body).
		double[] shocks = null;
		double[] cholesky = null;
		if (request.scenarios() != null) {
			shocks = shocks(problems, request.scenarios(), f);
			problems.throwIfAny();
		}
		else {
			double[] covariance = covariance(problems, request.generate().covariance(), f);
			problems.throwIfAny();
			cholesky = Cholesky.lower(covariance, f);
			if (cholesky == null) {
				problems.add("generate.covariance", "must be positive semi-definite");
				problems.throwIfAny();
			}
		}
		return new ScenarioRiskInput(request, f, s, sensitivities, shocks, cholesky);
	}

	private static void checkBounds(Problems problems, String field, long s, long p, long f, boolean generated) {
		if (s * p > ScenarioRiskRequest.MAX_MATRIX_CELLS) {
			problems.add(field,
					"scenarios x positions must be at most " + ScenarioRiskRequest.MAX_MATRIX_CELLS + ", was " + s * p);
		}
		if (s * f > ScenarioRiskRequest.MAX_MATRIX_CELLS) {
			problems.add(field,
					"scenarios x factors must be at most " + ScenarioRiskRequest.MAX_MATRIX_CELLS + ", was " + s * f);
		}
		long work = s * p * f + (generated ? p * f * f : 0);
		if (work > ScenarioRiskRequest.MAX_MULTIPLY_ADDS) {
			problems.add(field, "scenarios x positions x factors must be at most "
					+ ScenarioRiskRequest.MAX_MULTIPLY_ADDS + ", was " + work);
		}
	}

	private static double[] shocks(Problems problems, double[][] rows, int f) {
		int s = rows.length;
		double[] shocks = new double[Math.multiplyExact(s, f)];
		for (int i = 0; i < s; i++) {
			double[] row = rows[i];
			String field = "scenarios[" + i + "]";
			if (row == null || row.length != f) {
				problems.add(field, "must hold " + f + " values, one per factor");
				continue;
			}
			for (int j = 0; j < f; j++) {
				if (!Double.isFinite(row[j])) {
					problems.add(field + "[" + j + "]", "must be a finite number");
				}
				shocks[i + s * j] = row[j];
			}
		}
		return shocks;
	}

	private static double[] covariance(Problems problems, double[][] rows, int f) {
		int errorsBefore = problems.count();
		if (rows.length != f) {
			problems.add("generate.covariance", "must hold " + f + " rows, one per factor");
			return null;
		}
		double[] covariance = new double[f * f];
		for (int i = 0; i < f; i++) {
			double[] row = rows[i];
			String field = "generate.covariance[" + i + "]";
			if (row == null || row.length != f) {
				problems.add(field, "must hold " + f + " values, one per factor");
				continue;
			}
			for (int j = 0; j < f; j++) {
				if (!Double.isFinite(row[j])) {
					problems.add(field + "[" + j + "]", "must be a finite number");
				}
				covariance[i + f * j] = row[j];
			}
		}
		if (problems.count() > errorsBefore) {
			return null;
		}
		for (int i = 0; i < f; i++) {
			if (covariance[i + f * i] < 0) {
				problems.add("generate.covariance[" + i + "][" + i + "]", "must not be negative (a variance)");
			}
			for (int j = 0; j < i; j++) {
				double a = covariance[i + f * j];
				double b = covariance[j + f * i];
				if (Math.abs(a - b) > SYMMETRY_TOLERANCE * Math.max(Math.abs(a), Math.abs(b))) {
					problems.add("generate.covariance[" + i + "][" + j + "]",
							"must equal generate.covariance[" + j + "][" + i + "]");
				}
			}
		}
		return covariance;
	}

	/**
	 * The invalid values found: the first {@link #MAX_LISTED}, and their count.
	 */
	private static final class Problems {

		private final List<InvalidRiskInputException.Problem> listed = new ArrayList<>();

		private int count;

		void add(String field, String message) {
			if (this.listed.size() < MAX_LISTED) {
				this.listed.add(new InvalidRiskInputException.Problem(field, message));
			}
			this.count++;
		}

		int count() {
			return this.count;
		}

		void throwIfAny() {
			if (this.count > 0) {
				throw exception();
			}
		}

		InvalidRiskInputException exception() {
			return new InvalidRiskInputException(this.listed, this.count);
		}

	}

}
