package dev.offload.sample.web;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The dashboard end to end in headless Chromium: the page loads, shows the device, and
 * its numbers and chart change when requests are fired from its buttons, and the scenario
 * risk button's line shows its last result. Needs Debian's {@code chromium} and
 * {@code chromium-driver}, which {@code .ci/run} installs; elsewhere the test is skipped,
 * saying so.
 */
@Tag("browser")
// What the dashboard shows is checked here, not admission under load (AdmissionTests and
// AdmissionWaitTests do that): on a loaded machine the burst's 50 requests must wait for
// a place rather than be shed.
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.price.timeout=30s", "sample.price.admission-wait=20s" })
class DashboardBrowserTests {

	private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

	private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

	@LocalServerPort
	int port;

	private ChromeDriver driver;

	@BeforeEach
	void startBrowser() throws Exception {
		assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
				"Chromium and ChromeDriver are not installed (apt-get install chromium chromium-driver)");
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM.toFile());
		options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
				"--disable-sync", "--window-size=1400,1000",
				"--user-data-dir=" + Files.createTempDirectory("offload-chromium"));
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
			.usingAnyFreePort()
			.build();
		this.driver = new ChromeDriver(service, options);
	}

	@AfterEach
	void stopBrowser() {
		if (this.driver != null) {
			this.driver.quit();
		}
	}

	private String text(String css) {
		return this.driver.findElement(By.cssSelector(css)).getText();
	}

	@Test
	void dashboardShouldShowThePoolLendingAndTakingBackStreams() {
		this.driver.get("http://localhost:" + this.port + "/");
		WebDriverWait wait = new WebDriverWait(this.driver, Duration.ofSeconds(60));
		wait.until((d) -> !d.findElements(By.cssSelector(".device[data-device='0']")).isEmpty());
		assertThat(text("#backend")).contains("host backend");
		assertThat(text(".device[data-device='0'] h2")).contains("Device 0");
		WebElement chart = this.driver.findElement(By.id("chart-0"));
		wait.until((d) -> Integer.parseInt(chart.getDomAttribute("data-points")) >= 2);

		// The heavy job holds its stream for as long as the simulation runs: the chart
		// sees the pool lend it, through the pool's own peak when the job ends between
		// two polls.
		this.driver.findElement(By.id("heavy-button")).click();
		wait.until((d) -> Integer.parseInt(chart.getDomAttribute("data-max-in-use")) > 0);
		wait.until((d) -> Integer.parseInt(text(".device[data-device='0'] .value-peakInUse")) > 0);
		this.driver.findElement(By.id("burst-button")).click();
		new WebDriverWait(this.driver, Duration.ofMinutes(3))
			.until((d) -> d.findElements(By.cssSelector("#request-log tr")).size() >= 51);
		// The scenario risk button: its line shows the last result and when it came.
		assertThat(text("#risk-result")).contains("not run yet");
		this.driver.findElement(By.id("risk-button")).click();
		new WebDriverWait(this.driver, Duration.ofMinutes(3)).until((d) -> text("#risk-result").contains("HTTP "));
		assertThat(text("#risk-result")).contains("HTTP 200").contains("VaR 99%").contains("20,000 scenarios");
		List<WebElement> rows = this.driver.findElements(By.cssSelector("#request-log tr"));
		assertThat(rows)
			.allSatisfy((row) -> assertThat(row.getDomAttribute("class")).as(row.getText()).contains("status-200"));
		assertThat(rows.stream().map(WebElement::getText))
			.anySatisfy((row) -> assertThat(row).contains("monte carlo 8M"))
			.anySatisfy((row) -> assertThat(row).contains("scenario risk"));
		// Once the requests are done, every stream is back: the live number returns to
		// zero.
		wait.until((d) -> "0".equals(text(".device[data-device='0'] .value-inUse")));
	}

}
