package dev.offload.benchmarks.support;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntConsumer;

import org.jspecify.annotations.Nullable;

/**
 * A benchmark's command line: {@code --name value} options in any order (the last of a
 * repeated option wins) and positional arguments, read through typed getters that take
 * the default. A benchmark's {@code main} hands {@link #parse} its usage text and a
 * reader that calls the getters, and gets what the reader made.
 * <p>
 * What every benchmark does alike is done there: {@code --help} (or {@code -h}) prints
 * the usage and exits 0; an option without a value, a value that is not a number, is out
 * of bounds or not among the choices, an option no getter asked for, or an argument no
 * getter read prints what was wrong (naming the option and the value) and the usage on
 * standard error, and exits 2. A reader may throw {@link IllegalArgumentException} for
 * checks across options, with the same outcome. For example:
 *
 * <pre class="code">
 * record Options(String backend, int threads, Duration measured) {
 *     static Options from(CommandLine line) {
 *         return new Options(line.choice("--backend", "host", "cuda", "ffm"), line.intOption("--threads", 16, 1),
 *                 line.durationSeconds("--seconds", 300));
 *     }
 * }
 * Options options = CommandLine.parse(args, USAGE, Options::from);
 * </pre>
 */
public final class CommandLine {

	private static final int BAD_COMMAND_LINE = 2;

	private final Map<String, String> options = new LinkedHashMap<>();

	private final List<String> arguments = new ArrayList<>();

	private final Set<String> asked = new HashSet<>();

	private final boolean help;

	/** The positional arguments read: those from 0 to this index, exclusive. */
	private int argumentsRead;

	private CommandLine(String[] args) {
		boolean help = false;
		for (int i = 0; i < args.length; i++) {
			String arg = args[i];
			if (arg.equals("--help") || arg.equals("-h")) {
				help = true;
			}
			else if (arg.startsWith("--")) {
				if (i + 1 == args.length) {
					throw new IllegalArgumentException(arg + " needs a value");
				}
				this.options.put(arg, args[++i]);
			}
			else {
				this.arguments.add(arg);
			}
		}
		this.help = help;
	}

	/**
	 * Reads a benchmark's command line, or ends the process where the command line asks
	 * for the usage or is wrong (see the class comment).
	 * @param <T> what the reader makes, typically the benchmark's options
	 * @param args the arguments of {@code main}
	 * @param usage the usage text, printed for {@code --help} and after an error
	 * @param reader reads the options through the getters
	 * @return what the reader made
	 */
	public static <T> T parse(String[] args, String usage, Function<CommandLine, ? extends T> reader) {
		return parse(args, usage, reader, System.out, System.err, System::exit);
	}

	static <T> T parse(String[] args, String usage, Function<CommandLine, ? extends T> reader, PrintStream out,
			PrintStream err, IntConsumer exit) {
		int status;
		try {
			CommandLine line = new CommandLine(args);
			if (!line.help) {
				return line.read(reader);
			}
			out.print(usage);
			status = 0;
		}
		catch (IllegalArgumentException ex) {
			err.println(ex.getMessage());
			err.print(usage);
			status = BAD_COMMAND_LINE;
		}
		exit.accept(status);
		throw new IllegalStateException("The process did not exit with status " + status);
	}

	/**
	 * Reads a command line, as {@link #parse} does, but throws where {@link #parse} would
	 * exit 2; for tests of a benchmark's options. {@code --help} is ignored.
	 * @param <T> what the reader makes
	 * @param reader reads the options through the getters
	 * @param args the arguments
	 * @return what the reader made
	 * @throws IllegalArgumentException naming what was wrong
	 */
	public static <T> T read(Function<CommandLine, ? extends T> reader, String... args) {
		return new CommandLine(args).read(reader);
	}

	private <T> T read(Function<CommandLine, ? extends T> reader) {
		T value = reader.apply(this);
		for (String name : this.options.keySet()) {
			if (!this.asked.contains(name)) {
				throw new IllegalArgumentException("Unknown option " + name);
			}
		}
		if (this.arguments.size() > this.argumentsRead) {
			throw new IllegalArgumentException("Unexpected argument '" + this.arguments.get(this.argumentsRead) + "'");
		}
		return value;
	}

	/**
	 * Returns an option's value as it was given.
	 * @param name the option, {@code --name}
	 * @param otherwise the default
	 * @return the value, or the default where the option is not given
	 */
	public String string(String name, String otherwise) {
		String value = value(name);
		return (value != null) ? value : otherwise;
	}

	/**
	 * Returns an option's value as it was given, or {@code null}.
	 * @param name the option, {@code --name}
	 * @return the value, or {@code null} where the option is not given
	 */
	public @Nullable String optionalString(String name) {
		return value(name);
	}

	/**
	 * Returns an option's comma-separated values, trimmed, empty ones left out.
	 * @param name the option, {@code --name}
	 * @param otherwise the default
	 * @return the values, or the default where the option is not given
	 */
	public List<String> stringList(String name, List<String> otherwise) {
		String value = value(name);
		return (value != null) ? split(value) : otherwise;
	}

	/**
	 * Returns an option's value as an {@code int}, any.
	 * @param name the option, {@code --name}
	 * @param otherwise the default
	 * @return the value, or the default where the option is not given
	 * @throws IllegalArgumentException if the value is not a whole number in the range of
	 * an {@code int}
	 */
	public int intOption(String name, int otherwise) {
		return intOption(name, otherwise, Integer.MIN_VALUE);
	}

	/**
	 * Returns an option's value as an {@code int}, at least {@code least}.
	 * @param name the option, {@code --name}
	 * @param otherwise the default
	 * @param least the smallest value allowed
	 * @return the value, or the default where the option is not given
	 * @throws IllegalArgumentException if the value is not a whole number from
	 * {@code least} to {@link Integer#MAX_VALUE}
	 */
	public int intOption(String name, int otherwise, int least) {
		return intOption(name, otherwise, least, Integer.MAX_VALUE);
	}

	/**
	 * Returns an option's value as an {@code int} from {@code least} to {@code most}.
	 * @param name the option, {@code --name}
	 * @param otherwise the default
	 * @param least the smallest value allowed
	 * @param most the largest value allowed
	 * @return the value, or the default where the option is not given
	 * @throws IllegalArgumentException if the value is not a whole number from
	 * {@code least} to {@code most}
	 */
	public int intOption(String name, int otherwise, int least, int most) {
		String value = value(name);
		return (value != null) ? (int) number(name, value, least, most) : otherwise;
	}

	/**
	 * Returns an option's value as a {@code long}, any.
	 * @param name the option, {@code --name}
	 * @param otherwise the default
	 * @return the value, or the default where the option is not given
	 * @throws IllegalArgumentException if the value is not a whole number
	 */
	public long longOption(String name, long otherwise) {
		return longOption(name, otherwise, Long.MIN_VALUE);
	}

	/**
	 * Returns an option's value as a {@code long}, at least {@code least}.
	 * @param name the option, {@code --name}
	 * @param otherwise the default
	 * @param least the smallest value allowed
	 * @return the value, or the default where the option is not given
	 * @throws IllegalArgumentException if the value is not a whole number of at least
	 * {@code least}
	 */
	public long longOption(String name, long otherwise, long least) {
		String value = value(name);
		return (value != null) ? number(name, value, least, Long.MAX_VALUE) : otherwise;
	}

	/**
	 * Returns an option's comma-separated values as {@code int}s, each at least
	 * {@code least}.
	 * @param name the option, {@code --name}
	 * @param least the smallest value allowed
	 * @param otherwise the default
	 * @return the values, at least one, or the default where the option is not given
	 * @throws IllegalArgumentException if a value is not a whole number from
	 * {@code least} to {@link Integer#MAX_VALUE}, or there is none
	 */
	public int[] intList(String name, int least, int... otherwise) {
		String value = value(name);
		if (value == null) {
			return otherwise.clone();
		}
		List<String> parts = split(value);
		if (parts.isEmpty()) {
			throw new IllegalArgumentException(name + " needs at least one number, was '" + value + "'");
		}
		return parts.stream().mapToInt((part) -> (int) number(name, part, least, Integer.MAX_VALUE)).toArray();
	}

	/**
	 * Returns an option's value, a whole number of seconds of at least 0, as a duration.
	 * @param name the option, {@code --name}
	 * @param otherwiseSeconds the default, in seconds
	 * @return the value, or the default where the option is not given
	 * @throws IllegalArgumentException if the value is not a whole number of at least 0
	 */
	public Duration durationSeconds(String name, long otherwiseSeconds) {
		return durationSeconds(name, otherwiseSeconds, 0);
	}

	/**
	 * Returns an option's value, a whole number of seconds of at least
	 * {@code leastSeconds}, as a duration.
	 * @param name the option, {@code --name}
	 * @param otherwiseSeconds the default, in seconds
	 * @param leastSeconds the shortest duration allowed, in seconds
	 * @return the value, or the default where the option is not given
	 * @throws IllegalArgumentException if the value is not a whole number of at least
	 * {@code leastSeconds}
	 */
	public Duration durationSeconds(String name, long otherwiseSeconds, long leastSeconds) {
		return Duration.ofSeconds(longOption(name, otherwiseSeconds, leastSeconds));
	}

	/**
	 * Returns an option's value, one of the choices.
	 * @param name the option, {@code --name}
	 * @param otherwise the default, itself a choice
	 * @param others the other choices
	 * @return the value, or the default where the option is not given
	 * @throws IllegalArgumentException if the value is not among the choices
	 */
	public String choice(String name, String otherwise, String... others) {
		String value = string(name, otherwise);
		List<String> choices = new ArrayList<>();
		choices.add(otherwise);
		choices.addAll(Arrays.asList(others));
		if (!choices.contains(value)) {
			throw notAChoice(name, choices, value);
		}
		return value;
	}

	/**
	 * Returns an option's value, the name of a constant of an enum in any case.
	 * @param <E> the enum
	 * @param name the option, {@code --name}
	 * @param otherwise the default
	 * @return the constant, or the default where the option is not given
	 * @throws IllegalArgumentException if the value names no constant
	 */
	public <E extends Enum<E>> E enumOption(String name, E otherwise) {
		String value = value(name);
		if (value == null) {
			return otherwise;
		}
		E[] constants = otherwise.getDeclaringClass().getEnumConstants();
		for (E constant : constants) {
			if (constant.name().equals(value.toUpperCase(Locale.ROOT))) {
				return constant;
			}
		}
		throw notAChoice(name, Arrays.stream(constants).map(Enum::name).toList(), value);
	}

	/**
	 * Returns a positional argument as an {@code int}, any.
	 * @param index the argument's position among the positional ones, from 0
	 * @param name the argument's name in the usage, for an error
	 * @param otherwise the default, where fewer arguments are given
	 * @return the value
	 * @throws IllegalArgumentException if the argument is not a whole number in the range
	 * of an {@code int}
	 */
	public int intArgument(int index, String name, int otherwise) {
		String value = argument(index);
		return (value != null) ? (int) number(name, value, Integer.MIN_VALUE, Integer.MAX_VALUE) : otherwise;
	}

	/**
	 * Returns a positional argument as a {@code long}, any.
	 * @param index the argument's position among the positional ones, from 0
	 * @param name the argument's name in the usage, for an error
	 * @param otherwise the default, where fewer arguments are given
	 * @return the value
	 * @throws IllegalArgumentException if the argument is not a whole number
	 */
	public long longArgument(int index, String name, long otherwise) {
		String value = argument(index);
		return (value != null) ? number(name, value, Long.MIN_VALUE, Long.MAX_VALUE) : otherwise;
	}

	/**
	 * Returns a positional argument that must be given.
	 * @param index the argument's position among the positional ones, from 0
	 * @param name the argument's name in the usage, for an error
	 * @return the argument
	 * @throws IllegalArgumentException if fewer arguments are given
	 */
	public String requiredArgument(int index, String name) {
		String value = argument(index);
		if (value == null) {
			throw new IllegalArgumentException(name + " is missing");
		}
		return value;
	}

	/**
	 * Returns the positional arguments from one position on, at least one.
	 * @param from the first one's position among the positional ones, from 0
	 * @param name the first one's name in the usage, for an error
	 * @return the arguments
	 * @throws IllegalArgumentException if there is none at {@code from}
	 */
	public List<String> arguments(int from, String name) {
		if (this.arguments.size() <= from) {
			throw new IllegalArgumentException(name + " is missing");
		}
		this.argumentsRead = this.arguments.size();
		return List.copyOf(this.arguments.subList(from, this.arguments.size()));
	}

	private @Nullable String value(String name) {
		this.asked.add(name);
		return this.options.get(name);
	}

	private @Nullable String argument(int index) {
		this.argumentsRead = Math.max(this.argumentsRead, index + 1);
		return (index < this.arguments.size()) ? this.arguments.get(index) : null;
	}

	private static long number(String name, String value, long least, long most) {
		long number;
		try {
			number = Long.parseLong(value.trim());
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(name + " must be a whole number, was '" + value + "'", ex);
		}
		if (number < least) {
			throw new IllegalArgumentException(name + " must be at least " + least + ", was " + number);
		}
		if (number > most) {
			throw new IllegalArgumentException(name + " must be at most " + most + ", was " + number);
		}
		return number;
	}

	private static IllegalArgumentException notAChoice(String name, List<String> choices, String value) {
		return new IllegalArgumentException(
				name + " must be one of " + String.join(", ", choices) + ", was '" + value + "'");
	}

	private static List<String> split(String value) {
		return Arrays.stream(value.split(",")).map(String::trim).filter((part) -> !part.isEmpty()).toList();
	}

}
