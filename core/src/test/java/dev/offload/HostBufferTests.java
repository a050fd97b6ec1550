package dev.offload;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A host buffer's typed reads and writes, element by element for a few values and through
 * a typed view for many, within the buffer's own bytes of a larger block.
 */
class HostBufferTests {

	/** Not a size class: the block the buffer gets is larger. */
	private static final int BYTES = 1000;

	private DeviceRegistry registry;

	private HostBuffer host;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(1).build()).build();
		this.host = this.registry.device(0).allocateHost(BYTES);
	}

	@AfterEach
	void tearDown() {
		this.host.close();
		this.registry.close(Duration.ofSeconds(5));
	}

	@ParameterizedTest
	@ValueSource(ints = { 1, 16, 17, 100 })
	void typedValuesShouldReadBackWhereTheyWereWritten(int count) {
		int index = 3;
		float[] floats = new float[count];
		double[] doubles = new double[count];
		for (int i = 0; i < count; i++) {
			floats[i] = i + 0.5f;
			doubles[i] = -i - 0.25;
		}
		int[] ints = IntStream.range(0, count).map((i) -> i * 7 - 3).toArray();
		long[] longs = LongStream.range(0, count).map((i) -> (i << 40) + i).toArray();

		assertThat(this.host.putFloats(index, floats).getFloats(index, new float[count])).containsExactly(floats);
		assertThat(this.host.asByteBuffer().getFloat(index * Float.BYTES)).isEqualTo(floats[0]);
		assertThat(this.host.putDoubles(index, doubles).getDoubles(index, new double[count])).containsExactly(doubles);
		assertThat(this.host.asByteBuffer().getDouble(index * Double.BYTES)).isEqualTo(doubles[0]);
		assertThat(this.host.putInts(index, ints).getInts(index, new int[count])).containsExactly(ints);
		assertThat(this.host.putLongs(index, longs).getLongs(index, new long[count])).containsExactly(longs);
	}

	@ParameterizedTest
	@ValueSource(ints = { 2, 20 })
	void aWritePastTheBufferShouldBeRefusedWithoutWritingAnything(int count) {
		int last = BYTES / Float.BYTES - 1;
		this.host.putFloats(last - 1, new float[] { 1, 2 });
		assertThatIllegalArgumentException().isThrownBy(() -> this.host.putFloats(last, new float[count]))
			.withMessageContaining("outside the HostBuffer of 1000 bytes");
		assertThat(this.host.getFloats(last - 1, new float[2])).containsExactly(1, 2);
		assertThatIllegalArgumentException().isThrownBy(() -> this.host.getInts(last, new int[count]));
	}

	@Test
	void aViewMovedByItsHolderShouldNotMoveTheBuffersOwnAccesses() {
		ByteBuffer moved = this.host.asByteBuffer();
		moved.position(8).limit(12);
		moved.order(ByteOrder.BIG_ENDIAN).putFloat(8, 1.5f);
		this.host.putFloats(0, new float[] { 2.5f, 3.5f });
		assertThat(this.host.getFloats(0, new float[2])).containsExactly(2.5f, 3.5f);
		assertThat(this.host.getFloats(2, new float[1]))
			.containsExactly(ByteBuffer.allocate(4).putFloat(0, 1.5f).order(ByteOrder.LITTLE_ENDIAN).getFloat(0));
		assertThat(this.host.getFloats(0, new float[100])).startsWith(2.5f, 3.5f);
		ByteBuffer fresh = this.host.asByteBuffer();
		assertThat(fresh.position()).isZero();
		assertThat(fresh.limit()).isEqualTo(BYTES);
		assertThat(fresh.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
	}

	@Test
	void theNextBufferOnTheSameBlockShouldSeeItsOwnSizeAndTheBlocksBytes() {
		this.host.putInts(0, new int[] { 41, 42 });
		this.host.close();
		this.host = this.registry.device(0).allocateHost(8);
		assertThat(this.host.asByteBuffer().limit()).isEqualTo(8);
		assertThatIllegalArgumentException().isThrownBy(() -> this.host.getInts(1, new int[2]))
			.withMessageContaining("outside the HostBuffer of 8 bytes");
		this.host.putInts(0, new int[] { 7, 8 });
		assertThat(this.host.getInts(0, new int[2])).containsExactly(7, 8);
	}

	@Test
	void theByteViewShouldHoldTheBufferAlone() {
		ByteBuffer view = this.host.asByteBuffer();
		assertThat(view.position()).isZero();
		assertThat(view.limit()).isEqualTo(BYTES);
		assertThat(view.capacity()).isEqualTo(BYTES);
	}

}
