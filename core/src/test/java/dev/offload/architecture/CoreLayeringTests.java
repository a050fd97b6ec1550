package dev.offload.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import dev.offload.internal.completion.CompletionFailures;
import dev.offload.internal.completion.CompletionTuning;
import dev.offload.internal.completion.Completions;
import dev.offload.internal.health.GpuFaultWatcher;
import dev.offload.internal.health.Nvml;
import dev.offload.internal.health.NvmlGpuFaultSource;
import dev.offload.internal.lending.Lendable;
import dev.offload.internal.lending.LendingCensus;
import dev.offload.internal.lending.LendingItems;
import dev.offload.internal.lending.LendingPool;
import dev.offload.internal.lending.LendingTenant;
import dev.offload.internal.lending.LendingTuning;
import dev.offload.internal.memory.DeviceMemory;
import dev.offload.internal.memory.MemoryCounts;
import dev.offload.internal.memory.MemoryFailures;
import dev.offload.internal.memory.MemoryTenant;
import dev.offload.internal.memory.MemoryTuning;

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

	/**
	 * The memory room names nothing of the API: the device hands it the API's failures
	 * ({@code MemoryFailures}) and turns its counts into statistics.
	 */
	@ArchTest
	static final ArchRule memoryRoomShouldImportOnlyTheSpiAndTheInternals = noClasses().that()
		.resideInAPackage("dev.offload.internal.memory..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..")
			.and(not(resideInAnyPackage("dev.offload.internal..", "dev.offload.spi.."))));

	/**
	 * The completion room takes what it needs of the device and its sessions as
	 * callbacks, and the API's failures as {@code CompletionFailures}.
	 */
	@ArchTest
	static final ArchRule completionRoomShouldImportOnlyTheSpiAndTheInternals = noClasses().that()
		.resideInAPackage("dev.offload.internal.completion..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..")
			.and(not(resideInAnyPackage("dev.offload.internal..", "dev.offload.spi.."))));

	/** Each room keeps to itself: the device wires them together. */
	@ArchTest
	static final ArchRule completionRoomShouldNotReachTheMemoryRoom = noClasses().that()
		.resideInAPackage("dev.offload.internal.completion..")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("dev.offload.internal.memory..");

	@ArchTest
	static final ArchRule memoryRoomShouldNotReachTheCompletionRoom = noClasses().that()
		.resideInAPackage("dev.offload.internal.memory..")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("dev.offload.internal.completion..");

	@ArchTest
	static final ArchRule roomsShouldNotImportTheTemplateSpringOrBackends = noClasses().that()
		.resideInAPackage("dev.offload.internal..")
		.should()
		.dependOnClassesThat()
		.resideInAnyPackage("dev.offload.template..", "dev.offload.spring..", "dev.offload.autoconfigure..",
				"dev.offload.backend..");

	/** The rest of core reaches a device's memory through its one door. */
	@ArchTest
	static final ArchRule memoryShouldBeReachedThroughItsDoor = noClasses().that()
		.resideOutsideOfPackage("dev.offload.internal.memory..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload.internal.memory..")
			.and(not(JavaClass.Predicates.belongToAnyOf(DeviceMemory.class, MemoryTenant.class, MemoryTuning.class,
					MemoryFailures.class, MemoryCounts.class))));

	/**
	 * The lending room knows nothing of streams or devices: the stream pool hands it its
	 * items ({@code LendingItems}) and tenants' shares as values.
	 */
	@ArchTest
	static final ArchRule lendingRoomShouldImportOnlyTheInternals = noClasses().that()
		.resideInAPackage("dev.offload.internal.lending..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..")
			.and(not(resideInAnyPackage("dev.offload.internal", "dev.offload.internal.lending.."))));

	/** The rest of core lends through the room's door and the types it names. */
	@ArchTest
	static final ArchRule lendingShouldBeReachedThroughItsDoor = noClasses().that()
		.resideOutsideOfPackage("dev.offload.internal.lending..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload.internal.lending..")
			.and(not(JavaClass.Predicates.belongToAnyOf(LendingPool.class, Lendable.class, LendingItems.class,
					LendingCensus.class, LendingTenant.class, LendingTenant.Counters.class, LendingTuning.class))));

	/**
	 * The rest of core reaches a device's completion engine through its one door (and the
	 * door's callback of a session's end) and its tuning.
	 */
	@ArchTest
	static final ArchRule completionShouldBeReachedThroughItsDoor = noClasses().that()
		.resideOutsideOfPackage("dev.offload.internal.completion..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload.internal.completion..").and(not(JavaClass.Predicates
			.belongToAnyOf(Completions.class, CompletionTuning.class, CompletionFailures.class))));

	/**
	 * The GPU fault room names none of the root: it hands the registry a
	 * {@code dev.offload.health.GpuFault}, which names nothing else of Offload.
	 */
	@ArchTest
	static final ArchRule faultRoomShouldImportOnlyTheSpiTheInternalsAndTheHealthApi = noClasses().that()
		.resideInAPackage("dev.offload.internal.health..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..")
			.and(not(resideInAnyPackage("dev.offload.internal..", "dev.offload.spi..", "dev.offload.health.."))));

	/**
	 * The rest of Offload reaches the fault room through the watch, the NVML source and
	 * its binding seam (which the FFM backend implements).
	 */
	@ArchTest
	static final ArchRule faultRoomShouldBeReachedThroughItsDoors = noClasses().that()
		.resideOutsideOfPackage("dev.offload.internal.health..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload.internal.health..")
			.and(not(JavaClass.Predicates.belongToAnyOf(GpuFaultWatcher.class, NvmlGpuFaultSource.class, Nvml.class))));

	@ArchTest
	static final ArchRule healthShouldImportNothingElseOfOffload = noClasses().that()
		.resideInAPackage("dev.offload.health..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..").and(not(resideInAPackage("dev.offload.health.."))));

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
	 * The engine left in the root package (the memory and completion engines have rooms
	 * of their own, {@code dev.offload.internal.memory} and
	 * {@code dev.offload.internal.completion}, held by the package rules above): the
	 * pooled stream and the session ids. It takes what it needs as values and interfaces
	 * and never reads back the types users navigate (device, registry, session, pool,
	 * buffers, flows, kernels), so that the only loops left in the package are that
	 * navigation ({@code device.streamPool().device()}, as JDBC's
	 * {@code Statement.getConnection()}).
	 */
	@ArchTest
	static final ArchRule engineShouldNotReadTheApiBack = noClasses().that()
		.haveNameMatching("dev\\.offload\\.(PooledStream|SessionIds)(\\$.*)?")
		.should()
		.dependOnClassesThat()
		.haveNameMatching("dev\\.offload\\.(Device|DeviceRegistry|OffloadSession|StreamPool|StreamPools|Buffer"
				+ "|DeviceBuffer|HostBuffer|CapturedFlow|Kernel|KernelModule)(\\$.*)?");

	/**
	 * BLAS is a library on the root's seam ({@code StreamLibrary}): it reaches devices
	 * and streams only through the API root and the SPI, never a backend or the template
	 * (which offers it); its bindings implement the seam in
	 * {@code dev.offload.internal.blas}.
	 */
	@ArchTest
	static final ArchRule blasShouldImportOnlyTheRootAndTheSpi = noClasses().that()
		.resideInAPackage("dev.offload.blas..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..").and(not(resideInAnyPackage("dev.offload",
				"dev.offload.blas..", "dev.offload.spi..", "dev.offload.internal.blas"))));

	/**
	 * The cuBLAS binding's seam names nothing of Offload, so that a backend implements it
	 * without reaching BLAS's engine.
	 */
	@ArchTest
	static final ArchRule cublasSeamShouldImportNothingElseOfOffload = noClasses().that()
		.resideInAPackage("dev.offload.internal.blas")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..").and(not(resideInAPackage("dev.offload.internal.blas"))));

	// The shared helpers ('dev.offload.internal' itself, not its rooms).
	@ArchTest
	static final ArchRule internalShouldImportNothingElseOfOffload = noClasses().that()
		.resideInAPackage("dev.offload.internal")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..").and(not(resideInAPackage("dev.offload.internal"))));

	@ArchTest
	static final ArchRule backendsShouldNotImportTheTemplate = noClasses().that()
		.resideInAPackage("dev.offload.backend..")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("dev.offload.template..");

}
