package dev.offload.virtualthreads;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * The {@code jdk.VirtualThreadPinned} events (threshold 0, with stacks) that an
 * in-process JFR recording saw while some work ran, and those among them whose stack
 * passes through Offload's code.
 */
public final class PinnedEvents {

	private static final String PINNED = "jdk.VirtualThreadPinned";

	private static final String TEST_PACKAGE = PinnedEvents.class.getPackageName() + ".";

	private final List<RecordedEvent> events;

	private PinnedEvents(List<RecordedEvent> events) {
		this.events = events;
	}

	/**
	 * Records while {@code work} runs.
	 * @param work the work
	 * @return the events
	 * @throws Exception what the work or the recording threw
	 */
	public static PinnedEvents during(Callable<?> work) throws Exception {
		Path file = Files.createTempFile("offload-pinned", ".jfr");
		try {
			try (Recording recording = new Recording()) {
				recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
				recording.start();
				work.call();
				recording.stop();
				recording.dump(file);
			}
			return new PinnedEvents(RecordingFile.readAllEvents(file)
				.stream()
				.filter((event) -> PINNED.equals(event.getEventType().getName()))
				.toList());
		}
		finally {
			Files.deleteIfExists(file);
		}
	}

	/**
	 * Returns every pinned event.
	 * @return the events
	 */
	public List<RecordedEvent> all() {
		return this.events;
	}

	/**
	 * Describes the events whose stack has a frame of Offload's code (this package's test
	 * code aside).
	 * @return the pinned reason and stack of each
	 */
	public List<String> throughOffload() {
		return this.events.stream().filter(PinnedEvents::passesThroughOffload).map(PinnedEvents::describe).toList();
	}

	private static boolean passesThroughOffload(RecordedEvent event) {
		return event.getStackTrace() != null && event.getStackTrace()
			.getFrames()
			.stream()
			.map((frame) -> frame.getMethod().getType().getName())
			.anyMatch((type) -> type.startsWith("dev.offload.") && !type.startsWith(TEST_PACKAGE));
	}

	private static String describe(RecordedEvent event) {
		return event.getString("pinnedReason") + ": "
				+ event.getStackTrace()
					.getFrames()
					.stream()
					.map(PinnedEvents::describe)
					.collect(Collectors.joining(" < "));
	}

	private static String describe(RecordedFrame frame) {
		return frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
	}

}
