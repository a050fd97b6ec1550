package dev.offload.spring.aop;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Proxy;

import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;

import dev.offload.template.Offload;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OffloadAnnotationAdvisor}: which classes its pointcut applies to,
 * wherever in the type hierarchy {@link Offload @Offload} is declared, and that classes
 * without it are rejected by the class filter alone.
 */
class OffloadAnnotationAdvisorTests {

	private final OffloadAnnotationAdvisor advisor = new OffloadAnnotationAdvisor(new OffloadMethodInterceptor(() -> {
		throw new IllegalStateException("no call is made in these tests");
	}));

	@Test
	void classWithoutOffloadShouldBeRejectedByTheClassFilter() {
		// Rejected before any method is looked at: this is what keeps the many beans
		// without @Offload cheap.
		assertThat(this.advisor.getPointcut().getClassFilter().matches(Plain.class)).isFalse();
		assertThat(this.advisor.getPointcut().getClassFilter().matches(PlainSubclass.class)).isFalse();
		assertThat(AopUtils.canApply(this.advisor, Plain.class)).isFalse();
	}

	@Test
	void classWithOffloadAnywhereInItsHierarchyShouldBeAdvised() {
		assertThat(AopUtils.canApply(this.advisor, ClassLevel.class)).isTrue();
		assertThat(AopUtils.canApply(this.advisor, MethodLevel.class)).isTrue();
		assertThat(AopUtils.canApply(this.advisor, SubclassOfMethodLevel.class)).isTrue();
		assertThat(AopUtils.canApply(this.advisor, SubclassOfClassLevel.class)).isTrue();
		assertThat(AopUtils.canApply(this.advisor, ContractImpl.class)).isTrue();
		assertThat(AopUtils.canApply(this.advisor, ContractSubclass.class)).isTrue();
		assertThat(AopUtils.canApply(this.advisor, MetaAnnotated.class)).isTrue();
	}

	@Test
	void proxyOfClassWithOffloadShouldBeAdvised() {
		Class<?> jdkProxy = Proxy.getProxyClass(getClass().getClassLoader(), Contract.class);
		assertThat(AopUtils.canApply(this.advisor, jdkProxy)).isTrue();
		ProxyFactory factory = new ProxyFactory(new MethodLevel());
		factory.setProxyTargetClass(true);
		assertThat(AopUtils.canApply(this.advisor, factory.getProxy().getClass())).isTrue();
	}

	@Test
	void methodMatcherShouldMatchOnlyTheAnnotatedMethodsOfAnAdvisedClass() throws NoSuchMethodException {
		var matcher = this.advisor.getPointcut().getMethodMatcher();
		assertThat(matcher.matches(MethodLevel.class.getMethod("work"), MethodLevel.class)).isTrue();
		assertThat(matcher.matches(MethodLevel.class.getMethod("other"), MethodLevel.class)).isFalse();
		assertThat(matcher.matches(ContractImpl.class.getMethod("work"), ContractImpl.class)).isTrue();
	}

	static class Plain {

		public void work() {
		}

	}

	static class PlainSubclass extends Plain {

	}

	@Offload
	static class ClassLevel {

		public void work() {
		}

	}

	static class SubclassOfClassLevel extends ClassLevel {

	}

	static class MethodLevel {

		@Offload
		public void work() {
		}

		public void other() {
		}

	}

	static class SubclassOfMethodLevel extends MethodLevel {

		@Override
		public void work() {
		}

	}

	interface Contract {

		@Offload
		void work();

	}

	static class ContractImpl implements Contract {

		@Override
		public void work() {
		}

	}

	static class ContractSubclass extends ContractImpl {

	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@Offload
	@interface OnDevice {

	}

	static class MetaAnnotated {

		@OnDevice
		public void work() {
		}

	}

}
