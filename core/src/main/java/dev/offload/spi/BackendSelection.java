package dev.offload.spi;

import org.jspecify.annotations.Nullable;

/**
 * Which backend an application runs on and why, decided once at startup; logs, health and
 * endpoints report it.
 *
 * @param requested the backend that was asked for: {@code auto}, or a backend's name
 * @param provider the provider of the chosen backend, or {@code null} when the one
 * required cannot run
 * @param fallback whether {@code auto} fell back to the host emulation because CUDA
 * cannot run
 * @param reason why this backend: the probe's message of the backend that was chosen or,
 * on a fallback, of the one that could not run
 * @param deviceCount the devices the chosen backend reported when probed (0 when none was
 * chosen)
 */
public record BackendSelection(String requested, @Nullable BackendProvider provider, boolean fallback, String reason,
		int deviceCount) {

	/**
	 * Returns the chosen backend's name.
	 * @return the name, or {@code null} when the required backend cannot run
	 */
	public @Nullable String backend() {
		return (this.provider != null) ? this.provider.name() : null;
	}

	/**
	 * Returns the native binding of the chosen backend
	 * ({@link BackendProvider#binding()}).
	 * @return {@code jcuda} or {@code ffm} for CUDA, the backend's name for others, or
	 * {@code null} when the required backend cannot run
	 */
	public @Nullable String binding() {
		return (this.provider != null) ? this.provider.binding() : null;
	}

	/**
	 * Tells whether a backend could be chosen.
	 * @return {@code false} when the required backend cannot run
	 */
	public boolean isChosen() {
		return this.provider != null;
	}

	@Override
	public String toString() {
		return "BackendSelection[requested=" + this.requested + ", backend=" + backend() + ", binding=" + binding()
				+ ", fallback=" + this.fallback + ", reason=" + this.reason + ", deviceCount=" + this.deviceCount + "]";
	}

}
