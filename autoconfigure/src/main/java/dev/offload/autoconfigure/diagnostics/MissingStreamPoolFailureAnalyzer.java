package dev.offload.autoconfigure.diagnostics;

import java.lang.annotation.Annotation;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.InjectionPoint;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.UnsatisfiedDependencyException;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;

import dev.offload.StreamPool;
import dev.offload.spring.pool.DevicePool;

/**
 * Reports a {@link StreamPool} injection point qualified with a device that has no pool
 * ({@code @DevicePool(1)} or {@code @Qualifier("streamPool1")} with one device): the
 * devices there are and how to fix it. It runs before Boot's analyzer of missing beans,
 * which would create the remaining pool beans of a context that failed.
 */
final class MissingStreamPoolFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException>
		implements Ordered {

	private static final Pattern POOL_BEAN = Pattern.compile("streamPool(\\d+)");

	private final @Nullable ListableBeanFactory beanFactory;

	MissingStreamPoolFailureAnalyzer(BeanFactory beanFactory) {
		this.beanFactory = (beanFactory instanceof ListableBeanFactory listable) ? listable : null;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause) {
		ResolvableType type = cause.getResolvableType();
		UnsatisfiedDependencyException unsatisfied = findCause(rootFailure, UnsatisfiedDependencyException.class);
		if (type == null || !StreamPool.class.equals(type.resolve()) || unsatisfied == null
				|| unsatisfied.getInjectionPoint() == null) {
			return null;
		}
		InjectionPoint injectionPoint = unsatisfied.getInjectionPoint();
		String qualifier = null;
		Integer deviceId = null;
		for (Annotation annotation : injectionPoint.getAnnotations()) {
			if (annotation instanceof DevicePool pool) {
				qualifier = "@DevicePool(" + pool.value() + ")";
				deviceId = pool.value();
			}
			else if (annotation instanceof Qualifier named) {
				Matcher matcher = POOL_BEAN.matcher(named.value());
				if (matcher.matches()) {
					qualifier = "@Qualifier(\"" + named.value() + "\")";
					deviceId = Integer.valueOf(matcher.group(1));
				}
			}
		}
		if (deviceId == null) {
			return null;
		}
		List<Integer> ids = poolDeviceIds();
		String description = qualifier + " asks for the stream pool of device " + deviceId
				+ ", which does not exist: the devices are " + ids + ". Injection point: " + describe(injectionPoint)
				+ " of bean '" + unsatisfied.getBeanName() + "'.";
		String action = "Use @DevicePool with one of the device ids " + ids + " (or inject StreamPools and call "
				+ "get(id)), or make device " + deviceId + " available: raise 'offload.host.device-count' on the "
				+ "host backend, list it in 'offload.devices', or check that the GPU is visible to this process "
				+ "(CUDA_VISIBLE_DEVICES).";
		return new FailureAnalysis(description, action, cause);
	}

	/**
	 * The devices with a pool bean, read from the bean definitions without creating a
	 * bean.
	 */
	private List<Integer> poolDeviceIds() {
		if (this.beanFactory == null) {
			return List.of();
		}
		return Stream.of(this.beanFactory.getBeanNamesForType(StreamPool.class, true, false))
			.map(POOL_BEAN::matcher)
			.filter(Matcher::matches)
			.map((matcher) -> Integer.valueOf(matcher.group(1)))
			.sorted()
			.toList();
	}

	private static String describe(InjectionPoint injectionPoint) {
		if (injectionPoint.getField() != null) {
			return "field '" + injectionPoint.getField().getName() + "'";
		}
		var parameter = Objects.requireNonNull(injectionPoint.getMethodParameter());
		String member = (parameter.getMethod() != null) ? "method '" + parameter.getMethod().getName() + "'"
				: "constructor of " + parameter.getDeclaringClass().getSimpleName();
		return "parameter " + parameter.getParameterIndex() + " of " + member;
	}

}
