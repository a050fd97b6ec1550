package dev.offload.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import dev.offload.BackendException;
import dev.offload.DeviceOutOfMemoryException;
import dev.offload.HostStagingOutOfMemoryException;
import dev.offload.MemoryBudgetExceededException;
import dev.offload.MemoryStatistics;
import dev.offload.OffloadException;
import dev.offload.StreamPriority;
import dev.offload.internal.lending.Lendable;
import dev.offload.internal.lending.LendingCensus;
import dev.offload.internal.lending.LendingItems;
import dev.offload.internal.lending.LendingPool;
import dev.offload.internal.lending.LendingTenant;
import dev.offload.internal.lending.LendingTuning;
import dev.offload.internal.memory.DeviceMemory;
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
	/**
	 * The root's types that the memory room may name: the exceptions it throws, the
	 * statistics record it fills and the priority its budget queues by. Values at the
	 * bottom of the API that never name a room
	 * ({@link #doorTypesShouldNotReachTheRooms}), so that the room's use of them closes
	 * no loop between types.
	 */
	static final DescribedPredicate<JavaClass> ROOM_API = JavaClass.Predicates.belongToAnyOf(BackendException.class,
			OffloadException.class, DeviceOutOfMemoryException.class, HostStagingOutOfMemoryException.class,
			MemoryBudgetExceededException.class, MemoryStatistics.class, StreamPriority.class);

	// Each package is a slice of its own ('dev.offload' itself included), so a cycle
	// between any two is found; the rooms' use of the allow-listed API values is the one
	// loop left out (it is between packages, not types).
	@ArchTest
	static final ArchRule packagesShouldBeFreeOfCycles = slices().matching("dev.(**)")
		.should()
		.beFreeOfCycles()
		.ignoreDependency(resideInAPackage("dev.offload.internal.."), ROOM_API);

	@ArchTest
	static final ArchRule memoryRoomShouldImportOnlyTheSpiTheInternalsAndItsApiValues = noClasses().that()
		.resideInAPackage("dev.offload.internal.memory..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload..")
			.and(not(resideInAnyPackage("dev.offload.internal..", "dev.offload.spi..")))
			.and(not(ROOM_API)));

	@ArchTest
	static final ArchRule roomsShouldNotImportTheTemplateSpringOrBackends = noClasses().that()
		.resideInAPackage("dev.offload.internal..")
		.should()
		.dependOnClassesThat()
		.resideInAnyPackage("dev.offload.template..", "dev.offload.spring..", "dev.offload.autoconfigure..",
				"dev.offload.backend..");

	@ArchTest
	static final ArchRule doorTypesShouldNotReachTheRooms = noClasses().that(ROOM_API)
		.should()
		.dependOnClassesThat()
		.resideInAPackage("dev.offload.internal..");

	/** The rest of core reaches a device's memory through its one door. */
	@ArchTest
	static final ArchRule memoryShouldBeReachedThroughItsDoor = noClasses().that()
		.resideOutsideOfPackage("dev.offload.internal.memory..")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload.internal.memory..")
			.and(not(JavaClass.Predicates.belongToAnyOf(DeviceMemory.class, MemoryTuning.class))));

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
	 * The engine left in the root package (the memory engine has a room of its own,
	 * {@code dev.offload.internal.memory}, held by the package rules above): the event
	 * pool, the completion thread and its future, the pooled stream, the session ids. It
	 * takes what it needs as values and interfaces and never reads back the types users
	 * navigate (device, registry, session, pool, buffers, flows, kernels), so that the
	 * only loops left in the package are that navigation
	 * ({@code device.streamPool().device()}, as JDBC's
	 * {@code Statement.getConnection()}).
	 */
	@ArchTest
	static final ArchRule engineShouldNotReadTheApiBack = noClasses().that()
		.haveNameMatching(
				"dev\\.offload\\.(EventPool|CompletionPoller|CompletionFuture|PooledStream|SessionIds)(\\$.*)?")
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
