package dev.offload.benchmarks.support;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A benchmark's command line: typed options and arguments with defaults, and every kind
 * of bad input refused with the option and the value named, or, through
 * {@link CommandLine#parse}, the usage and exit status 2.
 */
class CommandLineTests {

	private static final String USAGE = "Usage: Bench [--threads N] [--backend host|cuda]\n";

	private static final Function<CommandLine, Options> OPTIONS = (line) -> new Options(
			line.intOption("--threads", 16, 1), line.choice("--backend", "host", "cuda"));

	@Test
	void readWhenNothingIsGivenShouldTakeTheDefaults() {
		assertThat(CommandLine.read(OPTIONS)).isEqualTo(new Options(16, "host"));
	}

	@Test
	void readWhenOptionsAreGivenInAnyOrderShouldTakeThem() {
		assertThat(CommandLine.read(OPTIONS, "--backend", "cuda", "--threads", "4")).isEqualTo(new Options(4, "cuda"));
	}

	@Test
	void readWhenAnOptionIsRepeatedShouldTakeTheLast() {
		assertThat(CommandLine.read(OPTIONS, "--threads", "4", "--threads", "8")).isEqualTo(new Options(8, "host"));
	}

	@Test
	void readWhenANumberIsBadShouldNameTheOptionAndTheValue() {
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(OPTIONS, "--threads", "four"))
			.withMessage("--threads must be a whole number, was 'four'");
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(OPTIONS, "--threads", "3000000000"))
			.withMessage("--threads must be at most 2147483647, was 3000000000");
	}

	@Test
	void readWhenANumberIsBelowItsBoundShouldNameTheBound() {
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(OPTIONS, "--threads", "0"))
			.withMessage("--threads must be at least 1, was 0");
	}

	@Test
	void readWhenANumberIsAboveItsBoundShouldNameTheBound() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CommandLine.read((line) -> line.intOption("--percent", 0, 0, 100), "--percent", "101"))
			.withMessage("--percent must be at most 100, was 101");
		int percent = CommandLine.read((line) -> line.intOption("--percent", 0, 0, 100), "--percent", "100");
		assertThat(percent).isEqualTo(100);
	}

	@Test
	void readWhenAValueIsNoChoiceShouldListTheChoices() {
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(OPTIONS, "--backend", "gpu"))
			.withMessage("--backend must be one of host, cuda, was 'gpu'");
	}

	@Test
	void readWhenAnOptionIsUnknownShouldNameIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(OPTIONS, "--thread", "4"))
			.withMessage("Unknown option --thread");
	}

	@Test
	void readWhenAValueIsMissingShouldSaySo() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CommandLine.read(OPTIONS, "--backend", "cuda", "--threads"))
			.withMessage("--threads needs a value");
	}

	@Test
	void readWhenAnArgumentIsLeftOverShouldNameIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(OPTIONS, "4"))
			.withMessage("Unexpected argument '4'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CommandLine.read((line) -> line.intArgument(0, "N", 1), "4", "5"))
			.withMessage("Unexpected argument '5'");
	}

	@Test
	void readWhenArgumentsArePositionalShouldTakeThemInOrderWithDefaultsForTheRest() {
		Function<CommandLine, long[]> reader = (line) -> new long[] { line.intArgument(0, "N", 8192),
				line.intArgument(1, "ROUNDS", 5), line.longArgument(2, "HOLD", 20) };
		assertThat(CommandLine.read(reader, "100", "3")).containsExactly(100, 3, 20);
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(reader, "100", "x"))
			.withMessage("ROUNDS must be a whole number, was 'x'");
	}

	@Test
	void readWhenArgumentsAreRequiredShouldSayWhichIsMissing() {
		Function<CommandLine, List<String>> reader = (line) -> List.of(line.requiredArgument(0, "OUTPUT"),
				String.join(" ", line.arguments(1, "INPUT")));
		assertThat(CommandLine.read(reader, "out.png", "a.json", "b.json")).containsExactly("out.png", "a.json b.json");
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(reader, "out.png"))
			.withMessage("INPUT is missing");
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(reader))
			.withMessage("OUTPUT is missing");
	}

	@Test
	void readWhenListsAreGivenShouldSplitAndTrimThem() {
		Function<CommandLine, int[]> sizes = (line) -> line.intList("--sizes", 1, 1, 1024);
		assertThat(CommandLine.read(sizes, "--sizes", "8, 16,32")).containsExactly(8, 16, 32);
		assertThat(CommandLine.read(sizes)).containsExactly(1, 1024);
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(sizes, "--sizes", "8,0"))
			.withMessage("--sizes must be at least 1, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(sizes, "--sizes", ","))
			.withMessage("--sizes needs at least one number, was ','");
		Function<CommandLine, List<String>> names = (line) -> line.stringList("--names", List.of("a"));
		assertThat(CommandLine.read(names, "--names", "b,,c ")).containsExactly("b", "c");
	}

	@Test
	void readWhenSecondsAreGivenShouldMakeADuration() {
		Function<CommandLine, Duration> reader = (line) -> line.durationSeconds("--seconds", 300);
		assertThat(CommandLine.read(reader)).isEqualTo(Duration.ofMinutes(5));
		assertThat(CommandLine.read(reader, "--seconds", "20")).isEqualTo(Duration.ofSeconds(20));
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(reader, "--seconds", "-1"))
			.withMessage("--seconds must be at least 0, was -1");
	}

	@Test
	void readWhenAnEnumIsNamedInAnyCaseShouldFindItsConstant() {
		Function<CommandLine, TimeUnit> reader = (line) -> line.enumOption("--unit", TimeUnit.SECONDS);
		assertThat(CommandLine.read(reader, "--unit", "millisECONDS")).isEqualTo(TimeUnit.MILLISECONDS);
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(reader, "--unit", "weeks"))
			.withMessageStartingWith("--unit must be one of NANOSECONDS, MICROSECONDS, ")
			.withMessageEndingWith(", was 'weeks'");
	}

	@Test
	void readWhenAStringIsOptionalShouldGiveNullWithoutIt() {
		Function<CommandLine, Optional<String>> csv = (line) -> Optional.ofNullable(line.optionalString("--csv"));
		assertThat(CommandLine.read(csv)).isEmpty();
		assertThat(CommandLine.read(csv, "--csv", "out.csv")).contains("out.csv");
	}

	@Test
	void parseWhenHelpIsAskedShouldPrintTheUsageAndExitZero() {
		for (String help : List.of("--help", "-h")) {
			Outcome outcome = parse("--threads", "4", help);
			assertThat(outcome.status()).isZero();
			assertThat(outcome.out()).isEqualTo(USAGE);
			assertThat(outcome.err()).isEmpty();
		}
	}

	@Test
	void parseWhenTheCommandLineIsBadShouldPrintWhatAndTheUsageAndExitTwo() {
		for (String[] bad : List.of(new String[] { "--threads", "x" }, new String[] { "--threads" },
				new String[] { "--gpus", "2" }, new String[] { "extra" })) {
			Outcome outcome = parse(bad);
			assertThat(outcome.status()).isEqualTo(2);
			assertThat(outcome.out()).isEmpty();
			assertThat(outcome.err()).endsWith("\n" + USAGE).doesNotStartWith("Usage");
		}
		assertThat(parse("--threads", "x").err()).startsWith("--threads must be a whole number, was 'x'\n");
	}

	@Test
	void parseWhenTheReaderRefusesTheOptionsShouldExitTwo() {
		Outcome outcome = parse((line) -> {
			throw new IllegalArgumentException("--ramp-ms must be shorter than --seconds");
		});
		assertThat(outcome.status()).isEqualTo(2);
		assertThat(outcome.err()).isEqualTo("--ramp-ms must be shorter than --seconds\n" + USAGE);
	}

	@Test
	void parseWhenTheCommandLineIsGoodShouldReturnWhatTheReaderMade() {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);
		Options options = CommandLine.parse(new String[] { "--threads", "2" }, USAGE, OPTIONS, stream, stream,
				(status) -> {
					throw new AssertionError("exit " + status);
				});
		assertThat(options).isEqualTo(new Options(2, "host"));
		assertThat(bytes.size()).isZero();
	}

	private static Outcome parse(String... args) {
		return parse(OPTIONS, args);
	}

	private static Outcome parse(Function<CommandLine, ?> reader, String... args) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		ByteArrayOutputStream err = new ByteArrayOutputStream();
		Exit exit = catchThrowableOfType(Exit.class,
				() -> CommandLine.parse(args, USAGE, reader, new PrintStream(out, true, StandardCharsets.UTF_8),
						new PrintStream(err, true, StandardCharsets.UTF_8), (status) -> {
							throw new Exit(status);
						}));
		assertThat(exit).as("the exit").isNotNull();
		return new Outcome(exit.status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
	}

	private record Options(int threads, String backend) {
	}

	private record Outcome(int status, String out, String err) {
	}

	/** Stands for the process's exit, which a test cannot take. */
	private static final class Exit extends RuntimeException {

		private final int status;

		Exit(int status) {
			super("exit " + status);
			this.status = status;
		}

	}

}
