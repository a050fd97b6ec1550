package dev.offload.benchmarks.chart;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import javax.imageio.ImageIO;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

import dev.offload.benchmarks.support.CommandLine;

/**
 * Draws the results of {@code StreamPoolBenchmark} (JMH {@code -rf json} files, one per
 * thread count) as a PNG: one panel per backend, throughput by thread count, one bar per
 * pool, on a logarithmic axis.
 * <p>
 * {@code java -cp benchmarks.jar dev.offload.benchmarks.chart.PoolChart docs/img/pool-overhead.png t1.json t2.json}
 */
public final class PoolChart {

	/** The pools in the order they are drawn, with their legend. */
	private static final Map<String, String> SERIES = Map.of("offloadPool", "Offload pool", "offloadSession",
			"Offload session", "llvmStack", "LLVM design (stack + lock)", "commonsPool2", "Commons Pool2",
			"prototypePool", "proposed fix (prototype)");

	private static final List<String> ORDER = List.of("offloadPool", "offloadSession", "llvmStack", "commonsPool2",
			"prototypePool");

	static final String USAGE = """
			Usage: java -cp benchmarks.jar dev.offload.benchmarks.chart.PoolChart OUTPUT.png RESULT.json...
			  OUTPUT.png    the chart to write
			  RESULT.json   JMH results (-rf json) of StreamPoolBenchmark, one file per thread count
			""";

	private static final int WIDTH = 800;

	private static final int HEIGHT = 520;

	private PoolChart() {
	}

	/**
	 * Writes the chart.
	 * @param args the PNG to write, then one or more JMH JSON result files
	 * @throws IOException if a file cannot be read or written
	 */
	public static void main(String[] args) throws IOException {
		Arguments arguments = CommandLine.parse(args, USAGE, Arguments::from);
		System.setProperty("java.awt.headless", "true");
		List<JmhResult> results = new ArrayList<>();
		for (Path json : arguments.results()) {
			results.addAll(JmhResult.read(json));
		}
		write(results, arguments.chart());
	}

	/**
	 * Draws the panels side by side into one PNG.
	 * @param results the JMH rows of {@code StreamPoolBenchmark}
	 * @param png the file to write
	 * @throws IOException if it cannot be written
	 */
	static void write(List<JmhResult> results, Path png) throws IOException {
		List<String> backends = new ArrayList<>(new TreeSet<>(results.stream().map(JmhResult::backend).toList()));
		BufferedImage image = new BufferedImage(WIDTH * backends.size(), HEIGHT, BufferedImage.TYPE_INT_RGB);
		// One scale for every panel, from the decade below the lowest score to the decade
		// above the highest.
		double lowest = results.stream().mapToDouble(JmhResult::score).filter((s) -> s > 0).min().orElse(1);
		double highest = results.stream().mapToDouble(JmhResult::score).max().orElse(1);
		double yMin = Math.pow(10, Math.floor(Math.log10(lowest)));
		double yMax = Math.pow(10, Math.ceil(Math.log10(highest)));
		Graphics2D graphics = image.createGraphics();
		try {
			for (int i = 0; i < backends.size(); i++) {
				String backend = backends.get(i);
				List<JmhResult> panel = results.stream().filter((r) -> r.backend().equals(backend)).toList();
				CategoryChart chart = chart(backend, panel, yMin, yMax);
				graphics.drawImage(BitmapEncoder.getBufferedImage(chart), i * WIDTH, 0, null);
			}
		}
		finally {
			graphics.dispose();
		}
		if (png.getParent() != null) {
			Files.createDirectories(png.getParent());
		}
		ImageIO.write(image, "png", png.toFile());
	}

	static CategoryChart chart(String backend, List<JmhResult> results, double yMin, double yMax) {
		List<Integer> threads = new ArrayList<>(new TreeSet<>(results.stream().map(JmhResult::threads).toList()));
		String unit = results.isEmpty() ? "" : results.get(0).unit();
		CategoryChart chart = new CategoryChartBuilder().width(WIDTH)
			.height(HEIGHT)
			.title("Borrow + release, " + backend + " backend (higher is better)")
			.xAxisTitle("threads")
			.yAxisTitle("throughput, " + unit + " (log scale)")
			.build();
		// Bars start from the axis minimum, which a logarithmic axis needs above zero.
		chart.getStyler().setYAxisLogarithmic(true);
		chart.getStyler().setYAxisMin(yMin);
		chart.getStyler().setYAxisMax(yMax);
		chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
		chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
		chart.getStyler().setChartBackgroundColor(Color.WHITE);
		chart.getStyler().setLabelsVisible(false);
		List<String> categories = threads.stream().map(String::valueOf).toList();
		for (String method : ORDER) {
			// No error bars: XChart draws them wrongly on a logarithmic axis;
			// docs/benchmarks.md has the errors.
			List<Double> scores = new ArrayList<>();
			for (int count : threads) {
				scores.add(results.stream()
					.filter((r) -> r.method().equals(method) && r.threads() == count)
					.mapToDouble(JmhResult::score)
					.findFirst()
					.orElse(Double.NaN));
			}
			if (scores.stream().anyMatch((s) -> !s.isNaN())) {
				chart.addSeries(SERIES.getOrDefault(method, method), categories, scores);
			}
		}
		return chart;
	}

	/**
	 * The command line.
	 *
	 * @param chart the PNG to write
	 * @param results the JMH JSON result files
	 */
	private record Arguments(Path chart, List<Path> results) {

		static Arguments from(CommandLine line) {
			return new Arguments(Path.of(line.requiredArgument(0, "OUTPUT.png")),
					line.arguments(1, "RESULT.json").stream().map(Path::of).toList());
		}

	}

}
