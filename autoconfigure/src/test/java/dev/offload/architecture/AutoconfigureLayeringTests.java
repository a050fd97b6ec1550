package dev.offload.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import dev.offload.backend.cuda.KernelCache;
import dev.offload.backend.cuda.KernelCacheStatistics;
import dev.offload.backend.cuda.KernelCompilationException;
import dev.offload.backend.cuda.NvrtcUnavailableException;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layering of the auto-configuration module's packages, as {@code docs/design.md}
 * ("Packages") states it: the runtime beans ({@code dev.offload.spring..}) never depend
 * on the auto-configurations that create them, and the Spring layer reaches the backends
 * only through the SPI, except where the backend is chosen and created.
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

	private static final DescribedPredicate<JavaClass> KERNEL_COMPILATION_API = JavaClass.Predicates.belongToAnyOf(
			KernelCache.class, KernelCacheStatistics.class, KernelCompilationException.class,
			NvrtcUnavailableException.class);

	// BackendFactory makes the one decision (BackendSelection) and builds the host
	// backend
	// from offload.host.*; everything else reads that decision. The CUDA backend's kernel
	// compilation API (its cache, its statistics and its two exceptions) is the one part
	// of a backend that the Spring layer configures, measures and reports.
	@ArchTest
	static final ArchRule springLayerShouldNotImportBackendsOutsideTheBackendFactory = noClasses().that()
		.resideInAnyPackage("dev.offload.autoconfigure..", "dev.offload.spring..")
		.and()
		.haveNameNotMatching("dev\\.offload\\.autoconfigure\\.BackendFactory(\\$.*)?")
		.should()
		.dependOnClassesThat(resideInAPackage("dev.offload.backend..").and(not(KERNEL_COMPILATION_API)));

}
