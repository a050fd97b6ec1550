package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import dev.offload.internal.ThreadStripes;

/**
 * Native memory that one thread writes on every call (a stream's kernel arguments, a
 * cuBLAS handle's scalars), aligned and padded to whole blocks of two cache lines (the
 * pair adjacent-line prefetch fetches): streams and handles are made one after another,
 * so their small blocks would otherwise sit side by side, and every call on one would
 * take the line from the thread calling on its neighbour.
 */
final class CacheLines {

	/** The alignment, and the multiple the size is rounded up to. */
	static final long BLOCK = ThreadStripes.SPACING_BYTES;

	private CacheLines() {
	}

	/**
	 * Allocates at least {@code bytes}, alone in its blocks.
	 * @param arena the arena whose closing frees it
	 * @param bytes the size needed
	 * @return the segment, {@code bytes} long, starting a block
	 */
	static MemorySegment allocate(Arena arena, long bytes) {
		long padded = (bytes + BLOCK - 1) / BLOCK * BLOCK;
		return arena.allocate(padded, BLOCK).asSlice(0, bytes);
	}

}
