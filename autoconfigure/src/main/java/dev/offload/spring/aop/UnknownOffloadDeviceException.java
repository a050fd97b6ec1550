package dev.offload.spring.aop;

import java.util.List;

import dev.offload.NoSuchDeviceException;

/**
 * An {@link dev.offload.template.Offload @Offload} method names a device that the
 * registry does not have; found at startup, so that the application does not start and
 * then fail on each call.
 */
public class UnknownOffloadDeviceException extends NoSuchDeviceException {

	private final String beanName;

	private final String method;

	/**
	 * Creates an exception.
	 * @param beanName the name of the bean whose method is annotated
	 * @param method the annotated method, such as {@code PricingService.price(List)}
	 * @param deviceId the device it names
	 * @param availableIds the ids of the registry's devices
	 */
	public UnknownOffloadDeviceException(String beanName, String method, int deviceId, List<Integer> availableIds) {
		super(deviceId, availableIds);
		this.beanName = beanName;
		this.method = method;
	}

	/**
	 * Returns the name of the bean whose method is annotated.
	 * @return the bean name
	 */
	public String getBeanName() {
		return this.beanName;
	}

	/**
	 * Returns the annotated method.
	 * @return the method, such as {@code PricingService.price(List)}
	 */
	public String getMethod() {
		return this.method;
	}

	@Override
	public String getMessage() {
		return "@Offload(device = " + getDeviceId() + ") on " + this.method + " of bean '" + this.beanName
				+ "' names a device that does not exist; the devices are " + getAvailableIds();
	}

}
