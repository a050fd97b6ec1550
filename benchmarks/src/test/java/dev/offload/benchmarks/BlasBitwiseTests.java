package dev.offload.benchmarks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bit-for-bit check's two halves stay the same: the C program's cases and generator
 * are the Java program's, and a difference is reported as one.
 */
class BlasBitwiseTests {

	private static final Path C_SOURCE = Path.of("src/main/c/blas_bitwise.c");

	@Test
	void theCProgramShouldComputeTheSameCases() throws IOException {
		String source = Files.readString(C_SOURCE);
		List<String> rows = Pattern.compile("\\{ (\"[a-z-]+\", [^}]+) \\}")
			.matcher(source)
			.results()
			.map((match) -> match.group(1))
			.toList();
		List<String> expected = BlasBitwise.CASES.stream()
			.map((each) -> String.format(Locale.ROOT, "\"%s\", %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %s, %s",
					each.name(), each.doubles() ? 1 : 0, each.transA(), each.transB(), each.m(), each.n(), each.k(),
					each.lda(), each.ldb(), each.ldc(), each.incx(), each.incy(), each.alpha(), each.beta()))
			.toList();
		assertThat(rows).isEqualTo(expected);
		assertThat(source).contains("state * 6364136223846793005ULL + 1442695040888963407ULL")
			.contains("(double) (state >> 40) / 8388608.0 - 1.0")
			.contains("state = 0x0ff10adULL + index;");
	}

	@Test
	void theGeneratorShouldGiveValuesAFloatHoldsInMinusOneToOne() {
		BlasBitwise.Generator generator = new BlasBitwise.Generator(0x0ff10adL);
		for (int i = 0; i < 10_000; i++) {
			double value = generator.next();
			assertThat(value).isBetween(-1.0, 1.0).isNotEqualTo(1.0);
			assertThat((double) (float) value).isEqualTo(value);
		}
	}

	@Test
	void oneDifferingBitShouldMakeACaseUnequal() {
		byte[] offload = floats(1f, 2f, 3f);
		assertThat(BlasBitwise.compare(offload, floats(1f, 2f, 3f), false)).isEqualTo("equal (12 bytes)");
		assertThat(BlasBitwise.compare(offload, floats(1f, Math.nextUp(2f), 3f), false))
			.startsWith("unequal: 1 of 3 elements differ, the first at 1");
		assertThat(BlasBitwise.compare(offload, floats(1f, 2f), false)).startsWith("unequal: 12 bytes from Offload");
	}

	private static byte[] floats(float... values) {
		ByteBuffer buffer = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
		for (float value : values) {
			buffer.putFloat(value);
		}
		return buffer.array();
	}

}
