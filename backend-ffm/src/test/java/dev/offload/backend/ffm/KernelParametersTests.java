package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link KernelParameters}: what {@code cuLaunchKernel} reads through the
 * packed {@code void**}, without a GPU.
 */
class KernelParametersTests {

	private final Arena arena = Arena.ofShared();

	private final KernelParameters parameters = new KernelParameters(this.arena);

	@AfterEach
	void close() {
		if (this.arena.scope().isAlive()) {
			this.arena.close();
		}
	}

	@Test
	void packShouldPointEachEntryAtItsValue() {
		KernelParameters.DeviceAddress buffer = () -> 0x7f00_1234_5678L;

		long packed = this.parameters.pack(new Object[] { 42, 1L << 40, 2.5f, -0.125d, buffer });

		MemorySegment pointers = MemorySegment.ofAddress(packed).reinterpret(5 * 8);
		assertThat(read(pointers, 0).get(ValueLayout.JAVA_INT, 0)).isEqualTo(42);
		assertThat(read(pointers, 1).get(ValueLayout.JAVA_LONG, 0)).isEqualTo(1L << 40);
		assertThat(read(pointers, 2).get(ValueLayout.JAVA_FLOAT, 0)).isEqualTo(2.5f);
		assertThat(read(pointers, 3).get(ValueLayout.JAVA_DOUBLE, 0)).isEqualTo(-0.125d);
		assertThat(read(pointers, 4).get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x7f00_1234_5678L);
	}

	@Test
	void packShouldReuseTheSameStorageForEveryLaunch() {
		long first = this.parameters.pack(new Object[] { 1, 2f, 3L, 4d });
		long second = this.parameters.pack(new Object[] { 5, 6f, 7L, 8d });

		assertThat(second).isEqualTo(first);
		MemorySegment pointers = MemorySegment.ofAddress(second).reinterpret(4 * 8);
		assertThat(read(pointers, 0).get(ValueLayout.JAVA_INT, 0)).isEqualTo(5);
		assertThat(read(pointers, 3).get(ValueLayout.JAVA_DOUBLE, 0)).isEqualTo(8d);
	}

	@Test
	void storagesOfStreamsMadeOneAfterAnotherShouldShareNoCacheLine() {
		// As a pool makes its streams: one arena each, one after another on one thread.
		// Every launch writes its stream's storage, so a shared line would pass between
		// the threads that launch on neighbouring streams.
		long[] lines = new long[8];
		Arena[] arenas = new Arena[lines.length];
		try {
			for (int i = 0; i < lines.length; i++) {
				arenas[i] = Arena.ofShared();
				long packed = new KernelParameters(arenas[i]).pack(new Object[] { i });
				assertThat(packed % CacheLines.BLOCK).isZero();
				lines[i] = packed / CacheLines.BLOCK;
			}
			// Aligned and padded to whole blocks of two lines, the capacity's 8 slots and
			// 8 pointers (128 bytes) fill one block each.
			assertThat(lines).doesNotHaveDuplicates();
		}
		finally {
			for (Arena each : arenas) {
				if (each != null) {
					each.close();
				}
			}
		}
	}

	@Test
	void packWhenMoreArgumentsThanCapacityShouldGrowAndKeepEveryValue() {
		Object[] args = new Object[20];
		for (int i = 0; i < args.length; i++) {
			args[i] = i * 3;
		}

		long packed = this.parameters.pack(args);

		assertThat(this.parameters.capacity()).isGreaterThanOrEqualTo(20);
		MemorySegment pointers = MemorySegment.ofAddress(packed).reinterpret(20 * 8);
		for (int i = 0; i < args.length; i++) {
			assertThat(read(pointers, i).get(ValueLayout.JAVA_INT, 0)).isEqualTo(i * 3);
		}
		assertThat(this.parameters.pack(new Object[] { 1 })).as("the grown storage is kept").isEqualTo(packed);
	}

	@Test
	void packWhenNoArgumentsShouldPassNull() {
		assertThat(this.parameters.pack(new Object[0])).isZero();
	}

	@Test
	void packWhenArgumentHasNoKernelTypeShouldNameIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.parameters.pack(new Object[] { 1, "text" }))
			.withMessage("Argument 1 cannot be passed to a CUDA kernel: java.lang.String");
	}

	@Test
	void packAfterTheStreamFreedItsStorageShouldThrowRatherThanWriteFreedMemory() {
		this.arena.close();

		assertThatIllegalStateException().isThrownBy(() -> this.parameters.pack(new Object[] { 1 }));
	}

	private static MemorySegment read(MemorySegment pointers, int index) {
		return MemorySegment.ofAddress(pointers.getAtIndex(ValueLayout.JAVA_LONG, index)).reinterpret(8);
	}

}
