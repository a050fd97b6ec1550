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
