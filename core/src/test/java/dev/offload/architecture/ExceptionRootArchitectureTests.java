package dev.offload.architecture;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import dev.offload.OffloadException;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

/**
 * Every public unchecked exception of core is an {@link OffloadException}, so an
 * application catches one root; the exceptions of a wrong call
 * ({@link IllegalArgumentException}, {@link IllegalStateException}) keep the JDK's types.
 */
@AnalyzeClasses(packages = "dev.offload", importOptions = ImportOption.DoNotIncludeTests.class)
class ExceptionRootArchitectureTests {

	@ArchTest
	static final ArchRule failuresShouldBeOffloadExceptions = classes().that()
		.areAssignableTo(RuntimeException.class)
		.and()
		.arePublic()
		.and()
		.areNotAssignableTo(IllegalArgumentException.class)
		.and()
		.areNotAssignableTo(IllegalStateException.class)
		.should()
		.beAssignableTo(OffloadException.class);

}
