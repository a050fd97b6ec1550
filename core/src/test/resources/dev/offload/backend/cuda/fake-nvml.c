/*
 * A stand-in for libnvidia-ml, compiled by the tests with cc: each function appends its
 * arguments as one line to "<this library's path>.log" and returns the status that
 * "<this library's path>.fail" names for it ("nvmlEventSetWait_v2 10" lines), or 0. It
 * knows one GPU, whose handle is 0xde1, and its event set reports Xid 79 on it.
 */
#include "fake-library.h"

typedef struct {
	void *device;
	unsigned long long eventType;
	unsigned long long eventData;
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlEventData_t;

int nvmlInit_v2(void) {
	return record("nvmlInit_v2", "");
}

int nvmlShutdown(void) {
	return record("nvmlShutdown", "");
}

const char *nvmlErrorString(int result) {
	static __thread char text[64];
	snprintf(text, sizeof text, "fake NVML error %d", result);
	return text;
}

int nvmlSystemGetDriverVersion(char *version, unsigned int length) {
	snprintf(version, length, "580.00.fake");
	return record("nvmlSystemGetDriverVersion", "length=%u", length);
}

int nvmlDeviceGetHandleByUUID(const char *uuid, void **device) {
	*device = (void *) (uintptr_t) 0xde1;
	return record("nvmlDeviceGetHandleByUUID", "uuid=%s", uuid);
}

int nvmlDeviceGetSupportedEventTypes(void *device, unsigned long long *types) {
	*types = 0x8 | 0x2;
	return record("nvmlDeviceGetSupportedEventTypes", "device=%llx", P(device));
}

int nvmlEventSetCreate(void **set) {
	*set = (void *) (uintptr_t) 0xe5e7;
	return record("nvmlEventSetCreate", "");
}

int nvmlDeviceRegisterEvents(void *device, unsigned long long types, void *set) {
	return record("nvmlDeviceRegisterEvents", "device=%llx,types=%llx,set=%llx", P(device), types, P(set));
}

int nvmlEventSetWait_v2(void *set, nvmlEventData_t *data, unsigned int timeout) {
	int status = record("nvmlEventSetWait_v2", "set=%llx,data@%llx,timeout=%u", P(set), P(data), timeout);
	if (status == 0) {
		data->device = (void *) (uintptr_t) 0xde1;
		data->eventType = 0x8;
		data->eventData = 79;
	}
	return status;
}

int nvmlEventSetFree(void *set) {
	return record("nvmlEventSetFree", "set=%llx", P(set));
}
