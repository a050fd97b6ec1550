package dev.offload.backend.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import dev.offload.kernel.ParamKind;

/**
 * Reads the kernels ({@code .entry} directives) of PTX text and the kinds of their
 * parameters, so that launches can be checked before anything reaches the driver. Device
 * functions ({@code .func}) are not kernels and are skipped.
 * <p>
 * PTX types map as {@code .u32 .s32 .b32} to {@link ParamKind#INT32},
 * {@code .u64 .s64 .b64} to {@link ParamKind#INT64} (pointers look the same),
 * {@code .f32} to {@link ParamKind#FLOAT32}, {@code .f64} to {@link ParamKind#FLOAT64}.
 * Any other parameter (a struct passed by value as {@code .b8} array, a 16-bit value)
 * makes the entry {@linkplain PtxEntry#isSupported() unsupported}.
 * <p>
 * Public only for Offload's other CUDA binding ({@code offload-backend-ffm}), which loads
 * modules the same way; not API.
 */
public final class PtxEntries {

	private static final Pattern COMMENTS = Pattern.compile("//[^\\n]*|/\\*.*?\\*/", Pattern.DOTALL);

	private static final Pattern ENTRY = Pattern.compile("\\.entry\\s+([A-Za-z_$%][\\w$%]*)\\s*\\(([^)]*)\\)");

	private PtxEntries() {
	}

	/**
	 * Reads the entries of {@code ptx}.
	 * @param ptx PTX text
	 * @return the entries, in the order of the text
	 */
	public static List<PtxEntry> parse(String ptx) {
		String text = COMMENTS.matcher(ptx).replaceAll(" ");
		List<PtxEntry> entries = new ArrayList<>();
		Matcher matcher = ENTRY.matcher(text);
		while (matcher.find()) {
			entries.add(entry(matcher.group(1), matcher.group(2)));
		}
		return entries;
	}

	/**
	 * Tells whether an image is PTX text rather than a cubin (ELF) or a fatbin.
	 * @param image the image bytes
	 * @return {@code true} for PTX
	 */
	public static boolean isPtx(byte[] image) {
		if (image.length >= 4 && image[0] == 0x7f && image[1] == 'E' && image[2] == 'L' && image[3] == 'F') {
			return false;
		}
		if (image.length >= 4) {
			int magic = (image[0] & 0xff) | (image[1] & 0xff) << 8 | (image[2] & 0xff) << 16 | (image[3] & 0xff) << 24;
			// A fatbin, or the wrapper nvcc puts around one.
			if (magic == 0xBA55ED50 || magic == 0x466243B1) {
				return false;
			}
		}
		for (byte b : image) {
			if (b < 0) {
				return false;
			}
		}
		return true;
	}

	private static PtxEntry entry(String name, String parameterList) {
		List<ParamKind> kinds = new ArrayList<>();
		String unsupported = null;
		String list = parameterList.trim();
		if (!list.isEmpty()) {
			String[] parameters = list.split(",");
			for (int i = 0; i < parameters.length; i++) {
				String parameter = parameters[i].trim().replaceAll("\\s+", " ");
				ParamKind kind = kind(parameter);
				if (kind == null) {
					if (unsupported == null) {
						unsupported = "parameter " + i + " '" + parameter + "' has no ParamKind";
					}
				}
				else {
					kinds.add(kind);
				}
			}
		}
		return new PtxEntry(name, List.copyOf(kinds), unsupported);
	}

	private static @Nullable ParamKind kind(String parameter) {
		String[] tokens = parameter.split(" ");
		if (tokens.length < 3 || !tokens[0].equals(".param") || parameter.contains("[")) {
			// Arrays are structs passed by value, which a launch cannot pass.
			return null;
		}
		for (int i = 1; i < tokens.length - 1; i++) {
			String token = tokens[i];
			switch (token) {
				case ".u32", ".s32", ".b32":
					return ParamKind.INT32;
				case ".u64", ".s64", ".b64":
					return ParamKind.INT64;
				case ".f32":
					return ParamKind.FLOAT32;
				case ".f64":
					return ParamKind.FLOAT64;
				default:
					if (!token.startsWith(".align") && !token.startsWith(".ptr") && !token.matches("\\d+")) {
						return null;
					}
			}
		}
		return null;
	}

	/**
	 * One kernel of PTX text.
	 *
	 * @param name the entry's name
	 * @param parameters the parameter kinds, in order (only the supported ones when
	 * {@code unsupported} is set)
	 * @param unsupported why the entry cannot be launched from Java, or {@code null}
	 */
	public record PtxEntry(String name, List<ParamKind> parameters, @Nullable String unsupported) {

		/**
		 * Tells whether the entry can be launched from Java.
		 * @return {@code true} when every parameter has a {@link ParamKind}
		 */
		public boolean isSupported() {
			return this.unsupported == null;
		}

	}

}
