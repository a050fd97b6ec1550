package dev.offload.architecture;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layering of the auto-configuration module's packages, as {@code docs/design.md}
 * ("Packages") states it: the runtime beans ({@code dev.offload.spring..}) never depend
 * on the auto-configurations that create them, the Spring layer reaches the backends only
 * through the SPI, except where the backend is chosen and created, and it never uses
 * core's internal package.
 */
@AnalyzeClasses(packages = { "dev.offload.autoconfigure", "dev.offload.spring" },
		importOptions = ImportOption.DoNotIncludeTests.class)
class AutoconfigureLayeringTests {

	// Each package is a slice of its own ('dev.offload' itself included), so a cycle
	// between any two is found.
	@ArchTest
	static final ArchRule packagesShouldBeFreeOfCycles = slices().matching("dev.(**)").should().beFreeOfCycles();

	@ArchTest
	static final ArchRule runtimeBeansShouldNotImportAutoConfiguration = noClasses().that()
		.resideInAPackage("dev.offload.spring..")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("dev.offload.autoconfigure..");

	// BackendFactory makes the one decision (BackendSelection) and builds the host
	// backend from offload.host.*; everything else reads that decision, and reaches the
	// kernel compilation (its cache, statistics and exceptions) through
	// dev.offload.compile.
	@ArchTest
	static final ArchRule springLayerShouldNotImportBackendsOutsideTheBackendFactory = noClasses().that()
		.resideInAnyPackage("dev.offload.autoconfigure..", "dev.offload.spring..")
		.and()
		.haveNameNotMatching("dev\\.offload\\.autoconfigure\\.BackendFactory(\\$.*)?")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("dev.offload.backend..");

	@ArchTest
	static final ArchRule springLayerShouldNotImportCoreInternals = noClasses().that()
		.resideInAnyPackage("dev.offload.autoconfigure..", "dev.offload.spring..")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("dev.offload.internal..");

}
