/*
 * What every fake library of the tests shares (FakeLibrary compiles it beside each): each
 * recorded call appends "function(arguments)" as one line to "<this library's path>.log"
 * and returns the status that "<this library's path>.fail" names for the function
 * ("function status" lines), or 0.
 */
#ifndef OFFLOAD_FAKE_LIBRARY_H
#define OFFLOAD_FAKE_LIBRARY_H

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

#endif
