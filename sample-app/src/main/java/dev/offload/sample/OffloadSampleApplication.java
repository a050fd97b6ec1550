package dev.offload.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The Offload sample service: option pricing on the GPU (or the host emulation), with a
 * live dashboard of the stream pools at {@code /}.
 */
@SpringBootApplication
public class OffloadSampleApplication {

	/**
	 * Starts the service.
	 * @param args command-line arguments
	 */
	public static void main(String[] args) {
		SpringApplication.run(OffloadSampleApplication.class, args);
	}

}
