package dev.offload.sample.web;

import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.server.ResponseStatusException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link TenantKey}: the gateway's header when configured and present, else the
 * remote address; a value that is not a tenant id is a 400 that does not echo it.
 */
class TenantKeyTests {

	private final TenantKey key = new TenantKey("X-Tenant-Id");

	private static MockHttpServletRequest from(String address) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/api/options/monte-carlo");
		request.setRemoteAddr(address);
		return request;
	}

	@Test
	void headerShouldNameTheTenantWhenPresent() {
		MockHttpServletRequest request = from("10.0.0.1");
		request.addHeader("X-Tenant-Id", "acme-risk");
		assertThat(this.key.of(request)).isEqualTo("acme-risk");
	}

	@Test
	void remoteAddressShouldNameTheTenantWithoutTheHeader() {
		assertThat(this.key.of(from("10.0.0.1"))).isEqualTo("address:10.0.0.1");
		assertThat(this.key.of(from("fe80::1%eth0"))).isEqualTo("address:fe80::1_eth0").matches(TenantKey.ID);
	}

	@Test
	void headerShouldBeIgnoredWhenNotConfigured() {
		MockHttpServletRequest request = from("10.0.0.1");
		request.addHeader("X-Tenant-Id", "acme-risk");
		assertThat(new TenantKey("").of(request)).isEqualTo("address:10.0.0.1");
	}

	@Test
	void headerValueThatIsNotATenantIdShouldBeA400WithoutTheValue() {
		MockHttpServletRequest request = from("10.0.0.1");
		request.addHeader("X-Tenant-Id", "<script>" + "x".repeat(100));
		assertThatExceptionOfType(ResponseStatusException.class).isThrownBy(() -> this.key.of(request))
			.satisfies((ex) -> assertThat(ex.getStatusCode().value()).isEqualTo(400))
			.withMessageContaining("X-Tenant-Id")
			.withMessageNotContaining("script");
	}

}
