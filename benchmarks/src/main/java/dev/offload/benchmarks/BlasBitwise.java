package dev.offload.benchmarks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.OffloadSession;
import dev.offload.benchmarks.support.Backends;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.blas.Blas;
import dev.offload.blas.BlasLibrary;
import dev.offload.blas.MathMode;
import dev.offload.blas.Transpose;

/**
 * Offload's BLAS calls against the same calls from C, bit for bit: {@code blas_bitwise.c}
 * and this program compute the same cases ({@code sgemm} and {@code dgemm} with
 * transposes and padded leading dimensions, {@code sgemv} and {@code dgemv} with
 * increments) on the same inputs, made by the same seeded generator, in the same math
 * mode and with the same workspace, each on a non-blocking stream of its own. The C
 * program writes {@code c-<case>.bin} into a folder; this one writes
 * {@code offload-<case>.bin} beside it and prints, per case, {@code equal} or
 * {@code unequal} (with the first differing element and how many differ), or
 * {@code no C result}. Exits 1 if a case is unequal. The cases and the generator are
 * written twice, here and in the C file: change both together.
 * <p>
 * Usage in {@link #USAGE}; {@code offload.blas.library} (a system property) names
 * cuBLAS's path. On the host backend (EJML) it writes its results and compares them as
 * well: a check of this program, not of cuBLAS.
 */
public final class BlasBitwise {

	static final String USAGE = """
			Usage: java -cp ... dev.offload.benchmarks.BlasBitwise [options]
			  --backend host|cuda|ffm         the backend (host)
			  --dir DIR                       the folder of the C program's results and of these (blas-bitwise)
			  --math DEFAULT|PEDANTIC|TF32    cuBLAS's math mode (DEFAULT)
			  --workspace N                   cuBLAS's workspace in bytes (4194304)
			""";

	/**
	 * The cases, the same as {@code blas_bitwise.c}'s: a GEMM when {@code k > 0}, else a
	 * GEMV of the stored {@code m x n} matrix.
	 */
	static final List<Case> CASES = List.of(
			new Case("sgemm-nn", false, 0, 0, 257, 129, 193, 257, 193, 257, 1, 1, 1.25, 0.5),
			new Case("sgemm-tn", false, 1, 0, 128, 96, 200, 203, 200, 129, 1, 1, 1.0, 0.0),
			new Case("dgemm-nt", true, 0, 1, 129, 65, 33, 129, 65, 129, 1, 1, -0.75, 1.0),
			new Case("sgemv-t", false, 1, 0, 1000, 300, 0, 1000, 0, 0, 1, 1, 1.0, 0.25),
			new Case("dgemv-n", true, 0, 0, 513, 257, 0, 520, 0, 0, 2, 1, 0.5, -1.0));

	private BlasBitwise() {
	}

	public static void main(String[] args) throws IOException {
		Options options = CommandLine.parse(args, USAGE, Options::from);
		String backend = options.backend();
		Path directory = options.directory();
		MathMode mode = options.mode();
		long workspace = options.workspaceBytes();
		Files.createDirectories(directory);
		BlasLibrary library = BlasLibrary.builder()
			.libraryPath(System.getProperty("offload.blas.library"))
			.workspaceBytes(workspace)
			.mathMode(mode)
			.build();
		boolean allEqual = true;
		try (DeviceRegistry registry = DeviceRegistry.builder(Backends.create(backend, 0)).build()) {
			System.out.printf(Locale.ROOT, "BLAS bit for bit on %s (%s backend), %s math, workspace %d bytes, in %s%n",
					registry.device(0).name(), backend, mode, workspace, directory.toAbsolutePath());
			for (int index = 0; index < CASES.size(); index++) {
				Case each = CASES.get(index);
				byte[] offload = compute(registry, library, each, index);
				Files.write(directory.resolve("offload-" + each.name() + ".bin"), offload);
				Path c = directory.resolve("c-" + each.name() + ".bin");
				String verdict = Files.exists(c) ? compare(offload, Files.readAllBytes(c), each.doubles())
						: "no C result (" + c.getFileName() + ")";
				allEqual &= !verdict.startsWith("unequal");
				System.out.printf(Locale.ROOT, "%-9s %s%n", each.name(), verdict);
			}
		}
		if (!allEqual) {
			System.exit(1);
		}
	}

	private static byte[] compute(DeviceRegistry registry, BlasLibrary library, Case each, int index) {
		Generator generator = new Generator(0x0ff10adL + index);
		boolean gemm = each.k() > 0;
		long sizeA = (long) each.lda() * (gemm ? ((each.transA() == 0) ? each.k() : each.m()) : each.n());
		long sizeB = gemm ? (long) each.ldb() * ((each.transB() == 0) ? each.n() : each.k())
				: 1 + (long) (((each.transA() == 0) ? each.n() : each.m()) - 1) * each.incx();
		long sizeC = gemm ? (long) each.ldc() * each.n()
				: 1 + (long) (((each.transA() == 0) ? each.m() : each.n()) - 1) * each.incy();
		int element = each.doubles() ? Double.BYTES : Float.BYTES;
		try (OffloadSession session = registry.device(0).openSession()) {
			DeviceBuffer a = upload(session, generator, sizeA, each.doubles());
			DeviceBuffer b = upload(session, generator, sizeB, each.doubles());
			DeviceBuffer c = upload(session, generator, sizeC, each.doubles());
			Blas blas = library.on(session);
			Transpose ta = (each.transA() == 0) ? Transpose.NONE : Transpose.TRANSPOSE;
			Transpose tb = (each.transB() == 0) ? Transpose.NONE : Transpose.TRANSPOSE;
			if (gemm && each.doubles()) {
				blas.dgemm(ta, tb, each.m(), each.n(), each.k(), each.alpha(), a, each.lda(), b, each.ldb(),
						each.beta(), c, each.ldc());
			}
			else if (gemm) {
				blas.sgemm(ta, tb, each.m(), each.n(), each.k(), (float) each.alpha(), a, each.lda(), b, each.ldb(),
						(float) each.beta(), c, each.ldc());
			}
			else if (each.doubles()) {
				blas.dgemv(ta, each.m(), each.n(), each.alpha(), a, each.lda(), b, each.incx(), each.beta(), c,
						each.incy());
			}
			else {
				blas.sgemv(ta, each.m(), each.n(), (float) each.alpha(), a, each.lda(), b, each.incx(),
						(float) each.beta(), c, each.incy());
			}
			HostBuffer result = session.allocateHost(sizeC * element);
			session.copy(c, 0, result, 0, result.size());
			session.synchronize();
			byte[] bytes = new byte[(int) result.size()];
			result.getBytes(0, bytes);
			return bytes;
		}
	}

	private static DeviceBuffer upload(OffloadSession session, Generator generator, long elements, boolean doubles) {
		int element = doubles ? Double.BYTES : Float.BYTES;
		ByteBuffer values = ByteBuffer.allocate((int) (elements * element)).order(ByteOrder.LITTLE_ENDIAN);
		for (long i = 0; i < elements; i++) {
			double value = generator.next();
			if (doubles) {
				values.putDouble(value);
			}
			else {
				values.putFloat((float) value);
			}
		}
		HostBuffer host = session.allocateHost(values.capacity());
		host.putBytes(0, values.array());
		DeviceBuffer device = session.allocate(values.capacity());
		session.copy(host, device);
		return device;
	}

	/** Equal, or where the first difference is and how many elements differ. */
	static String compare(byte[] offload, byte[] c, boolean doubles) {
		if (offload.length != c.length) {
			return "unequal: " + offload.length + " bytes from Offload, " + c.length + " from C";
		}
		int element = doubles ? Double.BYTES : Float.BYTES;
		ByteBuffer mine = ByteBuffer.wrap(offload).order(ByteOrder.LITTLE_ENDIAN);
		ByteBuffer theirs = ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN);
		int differing = 0;
		int first = -1;
		for (int i = 0; i < offload.length / element; i++) {
			boolean same = doubles ? mine.getLong(i * element) == theirs.getLong(i * element)
					: mine.getInt(i * element) == theirs.getInt(i * element);
			if (!same) {
				differing++;
				first = (first < 0) ? i : first;
			}
		}
		if (differing == 0) {
			return "equal (" + offload.length + " bytes)";
		}
		String values = doubles ? mine.getDouble(first * element) + " vs " + theirs.getDouble(first * element)
				: mine.getFloat(first * element) + " vs " + theirs.getFloat(first * element);
		return "unequal: " + differing + " of " + (offload.length / element) + " elements differ, the first at " + first
				+ " (Offload " + values + " C)";
	}

	private record Options(String backend, Path directory, MathMode mode, long workspaceBytes) {

		static Options from(CommandLine line) {
			return new Options(line.choice("--backend", "host", "cuda", "ffm"),
					Path.of(line.string("--dir", "blas-bitwise")), line.enumOption("--math", MathMode.DEFAULT),
					line.longOption("--workspace", BlasLibrary.RECOMMENDED_WORKSPACE_BYTES_BEFORE_HOPPER));
		}

	}

	/**
	 * One case: {@code transA} (a GEMV's {@code trans}) and {@code transB} as
	 * {@code cublasOperation_t}; {@code ldb} and {@code ldc} unused by a GEMV, whose
	 * {@code x} and {@code y} take the places of {@code B} and {@code C}.
	 */
	record Case(String name, boolean doubles, int transA, int transB, int m, int n, int k, int lda, int ldb, int ldc,
			int incx, int incy, double alpha, double beta) {
	}

	/**
	 * The inputs' generator, the same as the C program's: a 64-bit linear congruential
	 * generator (Knuth's MMIX constants), whose top 24 bits give a value in
	 * {@code [-1, 1)} that a float holds exactly.
	 */
	static final class Generator {

		private long state;

		Generator(long seed) {
			this.state = seed;
		}

		double next() {
			this.state = this.state * 6364136223846793005L + 1442695040888963407L;
			return (this.state >>> 40) / 8388608.0 - 1.0;
		}

	}

}
