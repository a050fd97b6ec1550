package dev.offload.architecture;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layering of core's packages, as {@code docs/design.md} ("Packages") states it.
 */
@AnalyzeClasses(packages = "dev.offload", importOptions = ImportOption.DoNotIncludeTests.class)
class CoreLayeringTests {

	// Each package is a slice of its own ('dev.offload' itself included), so a cycle
	// between any two is found.
	@ArchTest
	static final ArchRule packagesShouldBeFreeOfCycles = slices().matching("dev.(**)").should().beFreeOfCycles();

	@ArchTest
	static final ArchRule kernelShouldImportNothingElseOfOffload = noClasses().that()
		.resideInAPackage("dev.offload.kernel..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..").and(not(resideInAPackage("dev.offload.kernel.."))));

	@ArchTest
	static final ArchRule spiShouldImportOnlyTheKernel = noClasses().that()
		.resideInAPackage("dev.offload.spi..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..")
			.and(not(resideInAnyPackage("dev.offload.spi..", "dev.offload.kernel.."))));

	@ArchTest
	static final ArchRule apiShouldNeverImportABackend = noClasses().that()
		.resideInAPackage("dev.offload")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("dev.offload.backend..");

	@ArchTest
	static final ArchRule onlyBackendsShouldImportBackends = noClasses().that()
		.resideOutsideOfPackage("dev.offload.backend..")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("dev.offload.backend..");

	@ArchTest
	static final ArchRule compileShouldImportOnlyTheRootAndTheKernel = noClasses().that()
		.resideInAPackage("dev.offload.compile..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..")
			.and(not(resideInAnyPackage("dev.offload", "dev.offload.compile..", "dev.offload.kernel.."))));

	/**
	 * The engine under the API: the root package's machinery that a device builds (the
	 * buffer cache and its size classes, the memory budget, the staging arena, the memory
	 * thread, the event pool, the completion thread and its future, the pooled stream,
	 * the session ids). It takes what it needs as values and interfaces and never reads
	 * back the types users navigate (device, registry, session, pool, buffers, flows,
	 * kernels), so that the only loops left in the package are that navigation
	 * ({@code device.streamPool().device()}, as JDBC's
	 * {@code Statement.getConnection()}).
	 */
	@ArchTest
	static final ArchRule engineShouldNotReadTheApiBack = noClasses().that()
		.haveNameMatching(
				"dev\\.offload\\.(BufferCache|SizeClasses|MemoryBudget|HostStagingArena|MemoryThread|EventPool"
						+ "|CompletionPoller|CompletionFuture|PooledStream|SessionIds|ThreadStripes|StripedMagazines)(\\$.*)?")
		.should()
		.dependOnClassesThat()
		.haveNameMatching("dev\\.offload\\.(Device|DeviceRegistry|OffloadSession|StreamPool|StreamPools|Buffer"
				+ "|DeviceBuffer|HostBuffer|CapturedFlow|Kernel|KernelModule)(\\$.*)?");

	/**
	 * BLAS is a library on the root's seam ({@code StreamLibrary}): it reaches devices
	 * and streams only through the API root and the SPI, never a backend or the template
	 * (which offers it).
	 */
	@ArchTest
	static final ArchRule blasShouldImportOnlyTheRootAndTheSpi = noClasses().that()
		.resideInAPackage("dev.offload.blas..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..")
			.and(not(resideInAnyPackage("dev.offload", "dev.offload.blas..", "dev.offload.spi.."))));

	@ArchTest
	static final ArchRule internalShouldImportNothingElseOfOffload = noClasses().that()
		.resideInAPackage("dev.offload.internal..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..").and(not(resideInAPackage("dev.offload.internal.."))));

	@ArchTest
	static final ArchRule backendsShouldNotImportTheTemplate = noClasses().that()
		.resideInAPackage("dev.offload.backend..")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("dev.offload.template..");

}
