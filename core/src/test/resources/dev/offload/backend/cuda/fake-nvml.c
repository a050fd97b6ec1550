/*
 * A stand-in for libnvidia-ml, compiled by the tests with cc: each function appends its
 * arguments as one line to "<this library's path>.log" and returns the status that
 * "<this library's path>.fail" names for it ("nvmlEventSetWait_v2 10" lines), or 0. It
 * knows one GPU, whose handle is 0xde1, and its event set reports Xid 79 on it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static char log_path[4096];
static char fail_path[4096];

__attribute__((constructor)) static void locate(void) {
	Dl_info info;
	if (dladdr((void *) &locate, &info) && info.dli_fname != NULL) {
		snprintf(log_path, sizeof log_path, "%s.log", info.dli_fname);
		snprintf(fail_path, sizeof fail_path, "%s.fail", info.dli_fname);
	}
}

static int status_of(const char *function) {
	FILE *file = fopen(fail_path, "r");
	if (file == NULL) {
		return 0;
	}
	char name[256];
	int status;
	int found = 0;
	while (fscanf(file, "%255s %d", name, &status) == 2) {
		if (strcmp(name, function) == 0) {
			found = status;
			break;
		}
	}
	fclose(file);
	return found;
}

static int record(const char *function, const char *format, ...) {
	FILE *file = fopen(log_path, "a");
	if (file != NULL) {
		va_list arguments;
		va_start(arguments, format);
		fprintf(file, "%s(", function);
		vfprintf(file, format, arguments);
		fprintf(file, ")\n");
		va_end(arguments);
		fclose(file);
	}
	return status_of(function);
}

#define P(p) ((unsigned long long) (uintptr_t) (p))

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
