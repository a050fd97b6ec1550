package dev.offload.backend.host;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.offload.BackendException;
import dev.offload.kernel.HostKernel;

/**
 * One kernel launch of a host stream, split into chunks of consecutive blocks that the
 * device's workers take as a GPU's multiprocessors take thread blocks: a big grid runs on
 * every worker, and between two chunks a worker takes the waiting work of higher-priority
 * streams first. The launch is complete, and its stream goes on, when its last chunk
 * finishes.
 * <p>
 * A chunk has at least {@link #MIN_CHUNK_THREADS} threads (whole blocks); once a chunk
 * has been timed, the next ones are sized to take about {@link #TARGET_CHUNK_NANOS}, so
 * that queueing costs little against the work and a higher-priority stream waits for
 * about that long, whatever a kernel's thread costs.
 */
final class GridLaunch {

	/**
	 * The fewest threads in a chunk, so that a cheap kernel's chunks are not dominated by
	 * queueing.
	 */
	static final int MIN_CHUNK_THREADS = 256;

	/**
	 * The time a chunk is sized to take once the launch's blocks have been timed: 0.5 ms.
	 */
	static final long TARGET_CHUNK_NANOS = 500_000;

	private final HostStream stream;

	private final String name;

	private final HostKernel body;

	private final Object[] args;

	private final int gridX;

	private final int gridY;

	private final int gridZ;

	private final int blockX;

	private final int blockY;

	private final int blockZ;

	private final long blocks;

	private final long minChunkBlocks;

	private final AtomicLong nextBlock = new AtomicLong();

	private final AtomicLong blocksLeft;

	private final AtomicReference<BackendException> failure = new AtomicReference<>();

	/**
	 * The estimated time of one block, from the chunks timed so far; 0 until a chunk has
	 * finished.
	 */
	private volatile long nanosPerBlock;

	GridLaunch(HostStream stream, String name, HostKernel body, Object[] args, int gridX, int gridY, int gridZ,
			int blockX, int blockY, int blockZ) {
		this.stream = stream;
		this.name = name;
		this.body = body;
		this.args = args;
		this.gridX = gridX;
		this.gridY = gridY;
		this.gridZ = gridZ;
		this.blockX = blockX;
		this.blockY = blockY;
		this.blockZ = blockZ;
		this.blocks = (long) gridX * gridY * gridZ;
		long threadsPerBlock = (long) blockX * blockY * blockZ;
		this.minChunkBlocks = Math.max(1, (MIN_CHUNK_THREADS + threadsPerBlock - 1) / threadsPerBlock);
		this.blocksLeft = new AtomicLong(this.blocks);
	}

	String name() {
		return this.name;
	}

	/**
	 * Whether the grid has more than one chunk; a grid of one chunk runs on the stream's
	 * worker with {@link #runWhole()}.
	 * @return {@code true} if the grid is split
	 */
	boolean isChunked() {
		return this.blocks > this.minChunkBlocks;
	}

	/**
	 * Runs every block on the calling thread; a thrown exception is the launch's failure.
	 */
	void runWhole() {
		runBlocks(0, this.blocks);
	}

	/**
	 * Hands the chunks to the device's workers, as many at once as there are workers; the
	 * stream learns of the end through {@link HostStream#finishLaunch(BackendException)}.
	 */
	void start() {
		HostDevice device = this.stream.device();
		long chunks = (this.blocks + this.minChunkBlocks - 1) / this.minChunkBlocks;
		long takers = Math.min(chunks, device.workerCount());
		for (long i = 0; i < takers; i++) {
			if (!device.offer(this.stream.priority(), this::runChunks)) {
				runChunks();
				return;
			}
		}
	}

	/**
	 * A worker's turn: one chunk, then back in the device's queue, behind higher-priority
	 * work, while blocks remain.
	 */
	private void runChunks() {
		while (runNextChunk()) {
			if (this.nextBlock.get() >= this.blocks) {
				return;
			}
			// A closed device takes no more tasks: this worker then goes on itself, so
			// that nothing accepted is lost.
			if (this.stream.device().offer(this.stream.priority(), this::runChunks)) {
				return;
			}
		}
	}

	private boolean runNextChunk() {
		long size = nextChunkBlocks();
		long first = this.nextBlock.getAndAdd(size);
		if (first >= this.blocks) {
			return false;
		}
		long end = Math.min(first + size, this.blocks);
		long start = System.nanoTime();
		long skipped = 0;
		Throwable fatal = null;
		try {
			// Chunks claimed before a failure was seen are skipped, as a GPU aborts a
			// failed kernel.
			if (this.failure.get() == null) {
				runBlocks(first, end);
				long measured = Math.max(1, (System.nanoTime() - start) / (end - first));
				long previous = this.nanosPerBlock;
				// A worker preempted by the OS measures a slow chunk; the estimate at
				// most doubles per chunk, so one preemption does not shrink the next
				// chunks to a size where queueing costs more than work.
				this.nanosPerBlock = (previous != 0) ? Math.min(measured, 2 * previous) : measured;
			}
		}
		catch (Throwable ex) {
			this.failure.compareAndSet(null, this.stream.failureOf(this.name, ex));
			skipped = skipUnclaimed();
			fatal = HostStream.isFatal(ex) ? ex : null;
		}
		finally {
			if (this.blocksLeft.addAndGet(first - end - skipped) == 0) {
				this.stream.finishLaunch(this.failure.get());
			}
		}
		if (fatal != null) {
			throw (Error) fatal;
		}
		return true;
	}

	/**
	 * Claims every block that no worker has taken yet, so that a failed launch starts no
	 * more chunks.
	 * @return the number of blocks claimed
	 */
	private long skipUnclaimed() {
		long claimed = this.nextBlock.getAndSet(this.blocks);
		return Math.max(0, this.blocks - claimed);
	}

	private long nextChunkBlocks() {
		long perBlock = this.nanosPerBlock;
		long timed = (perBlock != 0) ? TARGET_CHUNK_NANOS / perBlock : this.minChunkBlocks;
		// The last blocks are shared out over the workers rather than left to one of
		// them.
		long share = (this.blocks - this.nextBlock.get()) / this.stream.device().workerCount();
		return Math.max(this.minChunkBlocks, Math.min(timed, share));
	}

	private void runBlocks(long first, long end) {
		GridThread thread = new GridThread(this.stream.device(), this.args, this.gridX, this.gridY, this.gridZ,
				this.blockX, this.blockY, this.blockZ);
		long plane = (long) this.gridX * this.gridY;
		int bz = (int) (first / plane);
		int by = (int) ((first % plane) / this.gridX);
		int bx = (int) (first % this.gridX);
		for (long block = first; block < end; block++) {
			thread.blockIdxX = bx;
			thread.blockIdxY = by;
			thread.blockIdxZ = bz;
			runBlock(thread);
			if (++bx == this.gridX) {
				bx = 0;
				if (++by == this.gridY) {
					by = 0;
					bz++;
				}
			}
		}
	}

	private void runBlock(GridThread thread) {
		for (int tz = 0; tz < this.blockZ; tz++) {
			thread.threadIdxZ = tz;
			for (int ty = 0; ty < this.blockY; ty++) {
				thread.threadIdxY = ty;
				for (int tx = 0; tx < this.blockX; tx++) {
					thread.threadIdxX = tx;
					this.body.run(thread);
				}
			}
		}
	}

}
