package dev.offload.architecture;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Holds core's public surface, as {@code docs/design.md} ("Packages") lists it: the
 * public types of each package are exactly these, so that a type made public by accident
 * fails the build until this list and the docs are changed on purpose; and no public
 * signature of a published package names a type that a user cannot or should not reach (a
 * package-private type, or one of {@code dev.offload.internal}).
 */
class PublicSurfaceTests {

	static final String INTERNAL = "dev.offload.internal";

	static final Map<String, Set<String>> PUBLIC_TYPES = Map.of(
			// The API.
			"dev.offload",
			Set.of("BackendException", "Buffer", "CapturedFlow", "Device", "DeviceBuffer", "DeviceFailedException",
					"DeviceOutOfMemoryException", "DeviceRegistry", "GpuFaultException", "HostBuffer",
					"HostStagingOutOfMemoryException", "InvalidSettingException", "Kernel", "KernelModule",
					"LibraryStatistics", "LibraryStream", "MemoryBudgetExceededException", "MemoryConfig",
					"MemoryStatistics", "NoSuchDeviceException", "NoSuchKernelException", "OffloadException",
					"OffloadListener", "OffloadSession", "SessionOptions", "SessionTimeoutException",
					"StreamBorrowTimeoutException", "StreamEvent", "StreamPool", "StreamPoolClosedException",
					"StreamPoolConfig", "StreamPoolStatistics", "StreamPools", "StreamPriority", "StreamLibrary",
					"TenantPolicy", "TenantStatistics"),
			"dev.offload.blas",
			Set.of("Blas", "BlasException", "BlasLibrary", "BlasUnavailableException", "MathMode", "Transpose"),
			"dev.offload.kernel",
			Set.of("CudaSource", "HostKernel", "HostThread", "KernelRef", "LaunchConfig", "ModuleDefinition",
					"ParamKind"),
			"dev.offload.compile",
			Set.of("KernelCache", "KernelCacheStatistics", "KernelCompilationException", "KernelCompiler",
					"KernelPrecompiler", "NvrtcUnavailableException"),
			"dev.offload.template",
			Set.of("BatchFunction", "BatchKernel", "BlasOperations", "BatchListener", "BatchPolicy",
					"BatchQueueFullException", "BatchTimeoutException", "Batched", "Batcher", "BatcherClosedException",
					"Flow", "IllegalSessionStateException", "KernelCall", "KernelResult", "Offload",
					"OffloadAttributes", "OffloadInvoker", "OffloadSessionBinding", "OffloadTemplate", "Propagation",
					"SessionCallback", "TenantResolver"),
			"dev.offload.leak", Set.of("LeakDetector"), "dev.offload.health", Set.of("GpuFault"),
			// The SPI: what a backend implements.
			"dev.offload.spi",
			Set.of("Backend", "BackendAvailability", "BackendDevice", "BackendEvent", "BackendGraph", "BackendKernel",
					"BackendModule", "BackendProvider", "BackendSelection", "BackendStream", "DeviceInfo",
					"GpuFaultSource", "GpuSharing", "NativeMemory"),
			// The backends: their providers (ServiceLoader needs them public) and entry
			// points; everything else in them is package-private.
			"dev.offload.backend.cuda",
			// CudaResults, GpuSharingDetection and PtxEntries: shared with the FFM
			// binding
			// (offload-backend-ffm), which fails devices on the same errors, describes
			// devices and loads modules the same way.
			Set.of("CudaBackend", "CudaBackendProvider", "CudaResults", "CudaSessions", "CudaUnavailableException",
					"GpuSharingDetection", "PtxEntries"),
			"dev.offload.backend.host", Set.of("HostBackend", "HostBackendProvider"));

	/**
	 * No API: no compatibility promise, left out of japicmp's check. The shared helpers;
	 * the memory and completion rooms' doors, their tuning and what the device hands them
	 * or takes back in the API's terms (failures, counts); the GPU fault room's door (the
	 * watch) and its NVML source, which the CUDA backends open (the engine behind them is
	 * package-private).
	 */
	static final Map<String, Set<String>> INTERNAL_TYPES = Map.of(INTERNAL,
			Set.of("DeadlineTimer", "FairQueue", "SessionDeadline", "ThreadStripes", "VirtualThreads"),
			INTERNAL + ".memory",
			Set.of("DeviceMemory", "MemoryCounts", "MemoryFailures", "MemoryTenant", "MemoryTuning"),
			INTERNAL + ".lending",
			Set.of("Lendable", "LendingCensus", "LendingItems", "LendingPool", "LendingTenant", "LendingTuning"),
			INTERNAL + ".completion", Set.of("CompletionFailures", "Completions", "CompletionTuning"),
			INTERNAL + ".health", Set.of("GpuFaultWatcher", "Nvml", "NvmlGpuFaultSource"), INTERNAL + ".blas",
			Set.of("CublasBinding", "CublasStatus"));

	/**
	 * The public API and SPI types (everything public outside
	 * {@code dev.offload.internal} and its rooms), as {@code docs/design.md} counts them.
	 */
	static final int PUBLIC_API_TYPES = 103;

	private static JavaClasses classes;

	@BeforeAll
	static void importClasses() {
		classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages("dev.offload");
	}

	@Test
	void publicTypesShouldBeExactlyTheListedOnes() {
		Map<String, Set<String>> expected = new TreeMap<>(PUBLIC_TYPES);
		expected.putAll(INTERNAL_TYPES);
		assertThat(publicTypes(classes)).isEqualTo(expected.entrySet()
			.stream()
			.collect(TreeMap::new, (map, entry) -> map.put(entry.getKey(), new TreeSet<>(entry.getValue())),
					Map::putAll));
	}

	@Test
	void publicApiTypesShouldBeAsManyAsTheDesignCounts() {
		long api = publicTypes(classes).entrySet()
			.stream()
			.filter((entry) -> !entry.getKey().equals(INTERNAL) && !entry.getKey().startsWith(INTERNAL + "."))
			.mapToLong((entry) -> entry.getValue().size())
			.sum();
		assertThat(api).isEqualTo(PUBLIC_API_TYPES);
	}

	@Test
	void publicSignaturesShouldNameOnlyPublicTypesOutsideTheInternalPackage() {
		assertThat(signatureLeaks(classes)).isEmpty();
	}

	/**
	 * Returns the public top-level types of each package.
	 * @param classes the classes
	 * @return the simple names of the public top-level types, by package
	 */
	static Map<String, Set<String>> publicTypes(JavaClasses classes) {
		Map<String, Set<String>> types = new TreeMap<>();
		for (JavaClass type : classes) {
			if (type.isTopLevelClass() && type.getModifiers().contains(JavaModifier.PUBLIC)
					&& !type.getSimpleName().equals("package-info")) {
				types.computeIfAbsent(type.getPackageName(), (name) -> new TreeSet<>()).add(type.getSimpleName());
			}
		}
		return types;
	}

	/**
	 * Returns, for each public or protected member of a type that users can reach, the
	 * Offload types its signature names that are not public or that live in the internal
	 * package.
	 * @param classes the classes
	 * @return one line per leak
	 */
	static List<String> signatureLeaks(JavaClasses classes) {
		List<String> leaks = new ArrayList<>();
		for (JavaClass type : classes) {
			if (!type.getPackageName().startsWith(INTERNAL) && isReachable(type)) {
				Stream.concat(Stream.of(type.getRawSuperclass().orElse(type)), type.getRawInterfaces().stream())
					.filter(PublicSurfaceTests::isHidden)
					.forEach((hidden) -> leaks.add(type.getName() + " extends " + hidden.getName()));
				for (JavaMember member : type.getMembers()) {
					if (isVisible(member.getModifiers())) {
						signature(member).filter(PublicSurfaceTests::isHidden)
							.forEach((hidden) -> leaks.add(member.getFullName() + " names " + hidden.getName()));
					}
				}
			}
		}
		return leaks;
	}

	private static boolean isReachable(JavaClass type) {
		return isVisible(type.getModifiers())
				&& type.getEnclosingClass().map(PublicSurfaceTests::isReachable).orElse(true);
	}

	private static boolean isVisible(Set<JavaModifier> modifiers) {
		return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
	}

	private static boolean isHidden(JavaClass type) {
		JavaClass base = type.getBaseComponentType();
		return base.getPackageName().startsWith("dev.offload")
				&& (base.getPackageName().startsWith(INTERNAL) || !isReachable(base));
	}

	private static Stream<JavaClass> signature(JavaMember member) {
		if (member instanceof JavaField field) {
			return Stream.of(field.getRawType());
		}
		JavaCodeUnit unit = (JavaCodeUnit) member;
		return Stream
			.of(Stream.of(unit.getRawReturnType()), unit.getRawParameterTypes().stream(),
					unit.getThrowsClause().getTypes().stream())
			.flatMap((types) -> types);
	}

}
