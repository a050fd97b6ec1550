package dev.offload.internal.completion;

import java.util.concurrent.LinkedBlockingQueue;

/**
 * An executor that holds its tasks until a thread runs them.
 */
public final class HeldExecutor implements java.util.concurrent.Executor {

	private final LinkedBlockingQueue<Runnable> held = new LinkedBlockingQueue<>();

	private volatile boolean released;

	@Override
	public void execute(Runnable task) {
		if (this.released) {
			task.run();
		}
		else {
			this.held.add(task);
		}
	}

	/**
	 * Runs the held tasks, and those they hand on, on a thread named {@code name}.
	 */
	public void runHeld(String name) throws InterruptedException {
		Thread runner = new Thread(() -> {
			Runnable task;
			while ((task = this.held.poll()) != null) {
				task.run();
			}
		}, name);
		runner.start();
		runner.join();
	}

	public boolean holdsAny() {
		return !this.held.isEmpty();
	}

	public void release() {
		this.released = true;
		Runnable task;
		while ((task = this.held.poll()) != null) {
			task.run();
		}
	}

}
