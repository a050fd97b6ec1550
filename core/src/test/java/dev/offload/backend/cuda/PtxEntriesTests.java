package dev.offload.backend.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.offload.kernel.ParamKind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link PtxEntries}.
 */
class PtxEntriesTests {

	@Test
	void parseWhenSaxpyPtxShouldReadItsSignature() throws IOException {
		List<PtxEntries.PtxEntry> entries = PtxEntries.parse(resource("kernels/saxpy.ptx"));
		assertThat(entries).singleElement().satisfies((entry) -> {
			assertThat(entry.name()).isEqualTo("saxpy");
			assertThat(entry.parameters()).containsExactly(ParamKind.INT32, ParamKind.FLOAT32, ParamKind.INT64,
					ParamKind.INT64);
			assertThat(entry.isSupported()).isTrue();
		});
	}

	@Test
	void parseWhenSeveralEntriesShouldKeepTheirOrder() throws IOException {
		List<PtxEntries.PtxEntry> entries = PtxEntries.parse(resource("kernels/spin.ptx"));
		assertThat(entries).extracting(PtxEntries.PtxEntry::name).containsExactly("spinUntilReleased", "spinFor");
		assertThat(entries.get(0).parameters()).containsExactly(ParamKind.INT64, ParamKind.INT64, ParamKind.INT64);
		assertThat(entries.get(1).parameters()).containsExactly(ParamKind.INT64);
	}

	@Test
	void parseWhenEntryHasNoParametersShouldReturnEmptyList() throws IOException {
		assertThat(PtxEntries.parse(resource("kernels/empty.ptx"))).singleElement()
			.satisfies((entry) -> assertThat(entry.parameters()).isEmpty());
	}

	@Test
	void parseWhenAllTypesShouldMapEachToItsKind() {
		String ptx = """
				.version 8.0
				.target sm_90
				.visible .entry all(.param .u32 a, .param .s32 b, .param .b32 c, .param .u64 d, .param .s64 e,
					.param .b64 f, .param .f32 g, .param .f64 h, .param .u64 .ptr .global .align 16 i)
				{ ret; }
				""";
		assertThat(PtxEntries.parse(ptx)).singleElement()
			.satisfies((entry) -> assertThat(entry.parameters()).containsExactly(ParamKind.INT32, ParamKind.INT32,
					ParamKind.INT32, ParamKind.INT64, ParamKind.INT64, ParamKind.INT64, ParamKind.FLOAT32,
					ParamKind.FLOAT64, ParamKind.INT64));
	}

	@Test
	void parseWhenFunctionsAndCommentsShouldReadOnlyEntries() {
		String ptx = """
				// .visible .entry commentedOut(.param .u32 x)
				/* .entry alsoCommentedOut(
				   .param .u32 y) */
				.func (.param .b32 ret) helper(.param .b32 x) { ret; }
				.weak .entry weakKernel(
					.param .f64 weakKernel_param_0 // trailing comment
				)
				{ ret; }
				.entry plain() { ret; }
				""";
		assertThat(PtxEntries.parse(ptx)).extracting(PtxEntries.PtxEntry::name).containsExactly("weakKernel", "plain");
	}

	@Test
	void parseWhenStructPassedByValueShouldMarkEntryUnsupported() {
		String ptx = """
				.visible .entry byValue(.param .align 8 .b8 byValue_param_0[16], .param .u32 n) { ret; }
				.visible .entry halfPrecision(.param .b16 h) { ret; }
				""";
		List<PtxEntries.PtxEntry> entries = PtxEntries.parse(ptx);
		assertThat(entries).hasSize(2).allSatisfy((entry) -> assertThat(entry.isSupported()).isFalse());
		assertThat(entries.get(0).unsupported()).contains("parameter 0", ".b8 byValue_param_0[16]");
		assertThat(entries.get(1).unsupported()).contains("parameter 0", ".b16 h");
	}

	@Test
	void isPtxWhenTextShouldBeTrueAndWhenCubinOrFatbinShouldBeFalse() throws IOException {
		assertThat(PtxEntries.isPtx(resource("kernels/saxpy.ptx").getBytes(StandardCharsets.US_ASCII))).isTrue();
		assertThat(PtxEntries.isPtx(bytes("kernels/saxpy.cubin"))).isFalse();
		assertThat(PtxEntries.isPtx(new byte[] { 0x50, (byte) 0xED, 0x55, (byte) 0xBA, 1, 0 })).isFalse();
	}

	@Test
	void nulTerminatedWhenMissingShouldAppendOneZeroByte() {
		assertThat(CudaModule.nulTerminated(new byte[] { 'a', 'b' })).containsExactly('a', 'b', 0);
		byte[] terminated = { 'a', 0 };
		assertThat(CudaModule.nulTerminated(terminated)).isSameAs(terminated);
	}

	static String resource(String name) throws IOException {
		return new String(bytes(name), StandardCharsets.US_ASCII);
	}

	static byte[] bytes(String name) throws IOException {
		try (InputStream in = PtxEntriesTests.class.getClassLoader().getResourceAsStream(name)) {
			assertThat(in).as(name).isNotNull();
			return in.readAllBytes();
		}
	}

}
