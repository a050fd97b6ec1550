package dev.offload.internal.memory;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.spi.Backend;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The device's memory thread: how it reports the jobs that fail.
 */
class MemoryThreadTests {

	private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

	private PrintStream originalErr;

	private Backend backend;

	@BeforeEach
	void captureStandardError() {
		this.originalErr = System.err;
		// slf4j-simple looks System.err up on every message, so its output lands here.
		System.setErr(new PrintStream(this.captured, true, StandardCharsets.UTF_8));
		this.backend = HostBackend.builder().build();
	}

	@AfterEach
	void restore() {
		System.setErr(this.originalErr);
		this.backend.close();
	}

	@Test
	void theRepeatsOfAFailureShouldBeWarnedOnceAndAnotherFailureAgain() {
		MemoryThread thread = new MemoryThread(7, this.backend.devices().get(0), 0);
		// Stopped, it runs each job on the calling thread: the output is there when
		// submit returns.
		thread.stop();
		for (int i = 0; i < 3; i++) {
			thread.submit(() -> {
				throw new IllegalStateException("the context is lost");
			});
		}
		thread.submit(() -> {
			throw new IllegalStateException("another failure");
		});
		String output = this.captured.toString(StandardCharsets.UTF_8);
		assertThat(output.split("Device 7: a memory job failed: the context is lost", -1)).hasSize(2);
		assertThat(output).contains("Device 7: a memory job failed: another failure");
	}

}
