package dev.offload.internal.health;

import java.util.Map;

/**
 * What an Xid means and whether it fails a device: a small table from NVIDIA's Xid
 * catalog (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html), kept in step
 * with docs/operations.md ("GPU faults from NVML"). Xids outside it degrade the device.
 */
final class XidCatalog {

	/** An Xid's meaning and whether the device stops lending. */
	record Entry(String meaning, boolean fatal) {
	}

	private static final Map<Integer, Entry> ENTRIES = Map.ofEntries(
			// Faults of a context: a GPU context that hits them is lost (the catalog's
			// RESTART_APP), the same as CUDA's sticky errors.
			Map.entry(13, new Entry("graphics engine exception", true)),
			Map.entry(31, new Entry("GPU memory page fault", true)),
			Map.entry(43, new Entry("GPU stopped processing", true)),
			Map.entry(94, new Entry("contained ECC error", true)),
			// Faults of the GPU: it needs a reset, a reboot or a replacement.
			Map.entry(48, new Entry("double-bit ECC error", true)),
			Map.entry(61, new Entry("internal micro-controller breakpoint/warning", true)),
			Map.entry(62, new Entry("internal micro-controller halt", true)),
			Map.entry(64, new Entry("ECC page retirement or row remapping failure", true)),
			Map.entry(68, new Entry("video processor exception", true)),
			Map.entry(69, new Entry("graphics engine class error", true)),
			Map.entry(74, new Entry("NVLink error", true)),
			Map.entry(79, new Entry("GPU has fallen off the bus", true)),
			Map.entry(95, new Entry("uncontained ECC error", true)), Map.entry(119, new Entry("GSP RPC timeout", true)),
			Map.entry(120, new Entry("GSP error", true)),
			// Warnings: the device goes on lending.
			Map.entry(45,
					new Entry("preemptive cleanup, due to previous errors (a process's context torn down)", false)),
			Map.entry(63, new Entry("ECC page retirement or row remapping recorded", false)),
			Map.entry(92, new Entry("high single-bit ECC error rate", false)));

	private XidCatalog() {
	}

	static Entry lookUp(int xid) {
		Entry entry = ENTRIES.get(xid);
		if (entry != null) {
			return entry;
		}
		return new Entry((xid == 999) ? "unknown Xid (NVML reports 999)" : "not in Offload's Xid table", false);
	}

}
