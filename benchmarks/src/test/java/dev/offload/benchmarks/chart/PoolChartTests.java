package dev.offload.benchmarks.chart;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class PoolChartTests {

	private static final String JMH_JSON = """
			[ {
			  "jmhVersion" : "1.37", "benchmark" : "dev.offload.benchmarks.jmh.StreamPoolBenchmark.offloadPool",
			  "mode" : "thrpt", "threads" : 2, "forks" : 1, "params" : { "backend" : "free" },
			  "primaryMetric" : { "score" : 12.5, "scoreError" : 1.5, "scoreUnit" : "ops/us" }
			}, {
			  "jmhVersion" : "1.37", "benchmark" : "dev.offload.benchmarks.jmh.StreamPoolBenchmark.commonsPool2",
			  "mode" : "thrpt", "threads" : 2, "forks" : 1, "params" : { "backend" : "host" },
			  "primaryMetric" : { "score" : 0.5, "scoreError" : "NaN", "scoreUnit" : "ops/us" }
			} ]
			""";

	@TempDir
	Path directory;

	@Test
	void readWhenJmhJsonShouldTakeMethodBackendThreadsAndScore() throws Exception {
		Path json = Files.writeString(this.directory.resolve("t2.json"), JMH_JSON);
		List<JmhResult> results = JmhResult.read(json);
		assertThat(results).containsExactly(new JmhResult("offloadPool", "free", 2, "thrpt", 12.5, 1.5, "ops/us"),
				new JmhResult("commonsPool2", "host", 2, "thrpt", 0.5, Double.NaN, "ops/us"));
	}

	@Test
	void mainWhenTwoBackendsShouldDrawTwoPanels() throws Exception {
		Path json = Files.writeString(this.directory.resolve("t2.json"), JMH_JSON);
		Path png = this.directory.resolve("img/chart.png");
		PoolChart.main(new String[] { png.toString(), json.toString() });
		BufferedImage image = ImageIO.read(png.toFile());
		assertThat(image.getWidth()).isEqualTo(1600);
		assertThat(image.getHeight()).isEqualTo(520);
	}

}
