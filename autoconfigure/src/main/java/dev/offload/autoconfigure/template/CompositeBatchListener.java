package dev.offload.autoconfigure.template;

import java.util.List;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.template.BatchListener;
import dev.offload.template.Batcher;

/**
 * The {@link BatchListener} beans as one: each is told of every batcher's start and every
 * batch, in order; one that throws is logged and the next is still told.
 */
final class CompositeBatchListener implements BatchListener {

	private static final Logger logger = LoggerFactory.getLogger(CompositeBatchListener.class);

	private final List<BatchListener> listeners;

	CompositeBatchListener(List<BatchListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	@Override
	public void batcherStarted(Batcher<?, ?> batcher) {
		each((listener) -> listener.batcherStarted(batcher));
	}

	@Override
	public void batchCompleted(CompletedBatch batch) {
		each((listener) -> listener.batchCompleted(batch));
	}

	private void each(Consumer<BatchListener> call) {
		for (BatchListener listener : this.listeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("Batch listener {} threw; ignored", listener, ex);
			}
		}
	}

	@Override
	public String toString() {
		return "CompositeBatchListener" + this.listeners;
	}

}
