package dev.offload.benchmarks.startup;

import java.lang.management.ManagementFactory;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A small web service with actuator that never names Offload: started with the starter on
 * its classpath, it gets Offload's autoconfiguration (host backend, pools, endpoint,
 * metrics); without, it is the same service. Prints {@code READY <ms> cpu=<ms>}, the time
 * from JVM start to ready and the CPU time the main thread used until then, and exits.
 */
@SpringBootApplication
@RestController
public class StartupApp {

	/**
	 * Answers one request.
	 * @return a greeting
	 */
	@GetMapping("/hello")
	public String hello() {
		return "hello";
	}

	/**
	 * Prints the time since the JVM started and the main thread's CPU time, and stops the
	 * application.
	 * @param event the ready event
	 */
	@EventListener
	public void ready(ApplicationReadyEvent event) {
		long millis = System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
		// The startup runs on this thread; its CPU time does not count the waits for a
		// CPU on a loaded machine.
		long cpuMillis = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1_000_000;
		boolean offload = event.getApplicationContext().containsBean("deviceRegistry");
		// toString names the backend, e.g. "DeviceRegistry[host, devices=[0]]"; no
		// Offload type is referenced here.
		Object registry = offload ? event.getApplicationContext().getBean("deviceRegistry") : "none";
		System.out.println("READY " + millis + " cpu=" + cpuMillis + " registry="
				+ registry.toString().replace(' ', '_') + " offload=" + offload);
		SpringApplication.exit(event.getApplicationContext());
	}

	/**
	 * Starts the application on a random port.
	 * @param args ignored
	 */
	public static void main(String[] args) {
		SpringApplication.run(StartupApp.class, "--server.port=0", "--spring.main.banner-mode=off",
				"--logging.level.root=warn", "--management.endpoints.web.exposure.include=health");
	}

}
