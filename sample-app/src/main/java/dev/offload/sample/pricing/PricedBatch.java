package dev.offload.sample.pricing;

import java.util.List;

/**
 * The prices of a batch, in request order, and where they were computed.
 *
 * @param device the device that priced the batch
 * @param backend the device's backend
 * @param prices one call and put price per option
 */
public record PricedBatch(int device, String backend, List<Price> prices) {

	/**
	 * The prices of one option.
	 *
	 * @param call the European call's price
	 * @param put the European put's price
	 */
	public record Price(double call, double put) {

	}

}
