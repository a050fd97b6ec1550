package dev.offload.sample.pricing;

/**
 * A Monte Carlo price with its statistical error, beside the closed form for comparison.
 *
 * @param price the mean discounted payoff
 * @param standardError the standard error of the mean
 * @param paths the number of paths simulated
 * @param closedForm the Black-Scholes price of the same call
 * @param device the device that ran the simulation
 */
public record MonteCarloResult(double price, double standardError, long paths, double closedForm, int device) {

}
