/*
 * The driver's floor for a light request: the driver calls Offload makes for one, made from C.
 * 4 bytes in (cuMemcpyHtoDAsync from page-locked memory), the 4-parameter kernel scale(n, a, x, y),
 * 4 bytes out (cuMemcpyDtoHAsync), cuStreamSynchronize; one stream, buffers and parameters per thread made
 * once. Loads libcuda.so.1 with dlopen: no CUDA headers needed.
 *
 * Build: cc -O2 -o light_request_floor light_request_floor.c -ldl -lpthread
 * Run:   light_request_floor SCALE_PTX [calls per thread, default 20000] [threads list, default "1 16"]
 * Prints, per thread count, requests/s and the p50/p99 of one request in microseconds, and for one thread the
 * p50 of an enqueue-only cuLaunchKernel and of an empty launch + cuStreamSynchronize.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream;
typedef unsigned long long CUdeviceptr;

static CUresult (*cuInit)(unsigned);
static CUresult (*cuDeviceGet)(CUdevice *, int);
static CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
static CUresult (*cuCtxSetCurrent)(CUcontext);
static CUresult (*cuModuleLoadData)(CUmodule *, const void *);
static CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
static CUresult (*cuStreamCreate)(CUstream *, unsigned);
static CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*cuMemHostAlloc)(void **, size_t, unsigned);
static CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
static CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
static CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
		CUstream, void **, void **);
static CUresult (*cuStreamSynchronize)(CUstream);

static CUcontext context;
static CUfunction scale;
static long calls = 20000;

#define CHECK(call) do { CUresult r = (call); if (r != 0) { fprintf(stderr, "%s: %d\n", #call, r); exit(1); } } while (0)

static void *need(void *lib, const char *name) {
	void *symbol = dlsym(lib, name);
	if (!symbol) {
		fprintf(stderr, "missing %s\n", name);
		exit(1);
	}
	return symbol;
}

static double now_us(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int compare(const void *a, const void *b) {
	double x = *(const double *) a, y = *(const double *) b;
	return (x > y) - (x < y);
}

static double percentile(double *sorted, long n, double p) {
	return sorted[(long) (p * (n - 1))];
}

struct worker {
	double *latencies;
	double seconds;
	pthread_barrier_t *barrier;
};

static void *requests(void *arg) {
	struct worker *w = arg;
	CHECK(cuCtxSetCurrent(context));
	CUstream stream;
	CHECK(cuStreamCreate(&stream, 1));
	CUdeviceptr x, y;
	CHECK(cuMemAlloc(&x, 4));
	CHECK(cuMemAlloc(&y, 4));
	float *in, *out;
	CHECK(cuMemHostAlloc((void **) &in, 4, 0));
	CHECK(cuMemHostAlloc((void **) &out, 4, 0));
	unsigned n = 1;
	float a = 2.0f;
	void *params[] = { &n, &a, &x, &y };
	for (int i = 0; i < 1000; i++) {
		*in = (float) i;
		CHECK(cuMemcpyHtoDAsync(x, in, 4, stream));
		CHECK(cuLaunchKernel(scale, 1, 1, 1, 1, 1, 1, 0, stream, params, NULL));
		CHECK(cuMemcpyDtoHAsync(out, y, 4, stream));
		CHECK(cuStreamSynchronize(stream));
	}
	pthread_barrier_wait(w->barrier);
	double start = now_us();
	for (long i = 0; i < calls; i++) {
		double t0 = now_us();
		*in = (float) i;
		CHECK(cuMemcpyHtoDAsync(x, in, 4, stream));
		CHECK(cuLaunchKernel(scale, 1, 1, 1, 1, 1, 1, 0, stream, params, NULL));
		CHECK(cuMemcpyDtoHAsync(out, y, 4, stream));
		CHECK(cuStreamSynchronize(stream));
		w->latencies[i] = now_us() - t0;
		if (*out != 2.0f * (float) i) {
			fprintf(stderr, "wrong result %f for %ld\n", *out, i);
			exit(1);
		}
	}
	w->seconds = (now_us() - start) / 1e6;
	return NULL;
}

static void single_calls(void) {
	CUstream stream;
	CHECK(cuStreamCreate(&stream, 1));
	CUdeviceptr x, y;
	CHECK(cuMemAlloc(&x, 4));
	CHECK(cuMemAlloc(&y, 4));
	unsigned n = 0;
	float a = 2.0f;
	void *params[] = { &n, &a, &x, &y };
	long count = calls < 20000 ? calls : 20000;
	double *launch = malloc(sizeof(double) * count), *sync = malloc(sizeof(double) * count);
	for (long i = 0; i < count; i++) {
		double t0 = now_us();
		CHECK(cuLaunchKernel(scale, 1, 1, 1, 1, 1, 1, 0, stream, params, NULL));
		launch[i] = now_us() - t0;
		if (i % 64 == 63) {
			CHECK(cuStreamSynchronize(stream));
		}
	}
	CHECK(cuStreamSynchronize(stream));
	for (long i = 0; i < count; i++) {
		double t0 = now_us();
		CHECK(cuLaunchKernel(scale, 1, 1, 1, 1, 1, 1, 0, stream, params, NULL));
		CHECK(cuStreamSynchronize(stream));
		sync[i] = now_us() - t0;
	}
	qsort(launch, count, sizeof(double), compare);
	qsort(sync, count, sizeof(double), compare);
	printf("C floor, cuLaunchKernel (4 parameters, enqueue only): p50 %.2f us\n", percentile(launch, count, 0.5));
	printf("C floor, empty launch + cuStreamSynchronize: p50 %.2f us, p99 %.2f us\n", percentile(sync, count, 0.5),
			percentile(sync, count, 0.99));
}

static void run(int threads) {
	pthread_t ids[threads];
	struct worker workers[threads];
	pthread_barrier_t barrier;
	pthread_barrier_init(&barrier, NULL, threads);
	for (int t = 0; t < threads; t++) {
		workers[t].latencies = malloc(sizeof(double) * calls);
		workers[t].barrier = &barrier;
		pthread_create(&ids[t], NULL, requests, &workers[t]);
	}
	double slowest = 0;
	double *all = malloc(sizeof(double) * calls * threads);
	for (int t = 0; t < threads; t++) {
		pthread_join(ids[t], NULL);
		if (workers[t].seconds > slowest) {
			slowest = workers[t].seconds;
		}
		memcpy(all + t * calls, workers[t].latencies, sizeof(double) * calls);
		free(workers[t].latencies);
	}
	long total = calls * threads;
	qsort(all, total, sizeof(double), compare);
	printf("C floor, light request, %d thread(s): %.0f requests/s, p50 %.2f us, p99 %.2f us\n", threads,
			total / slowest, percentile(all, total, 0.5), percentile(all, total, 0.99));
	free(all);
	pthread_barrier_destroy(&barrier);
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: %s SCALE_PTX [calls] [threads...]\n", argv[0]);
		return 2;
	}
	if (argc > 2) {
		calls = atol(argv[2]);
	}
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	cuInit = need(lib, "cuInit");
	cuDeviceGet = need(lib, "cuDeviceGet");
	cuDevicePrimaryCtxRetain = need(lib, "cuDevicePrimaryCtxRetain");
	cuCtxSetCurrent = need(lib, "cuCtxSetCurrent");
	cuModuleLoadData = need(lib, "cuModuleLoadData");
	cuModuleGetFunction = need(lib, "cuModuleGetFunction");
	cuStreamCreate = need(lib, "cuStreamCreate");
	cuMemAlloc = need(lib, "cuMemAlloc_v2");
	cuMemHostAlloc = need(lib, "cuMemHostAlloc");
	cuMemcpyHtoDAsync = need(lib, "cuMemcpyHtoDAsync_v2");
	cuMemcpyDtoHAsync = need(lib, "cuMemcpyDtoHAsync_v2");
	cuLaunchKernel = need(lib, "cuLaunchKernel");
	cuStreamSynchronize = need(lib, "cuStreamSynchronize");
	FILE *file = fopen(argv[1], "rb");
	if (!file) {
		perror(argv[1]);
		return 1;
	}
	fseek(file, 0, SEEK_END);
	long size = ftell(file);
	rewind(file);
	char *ptx = calloc(size + 1, 1);
	if (fread(ptx, 1, size, file) != (size_t) size) {
		perror("read");
		return 1;
	}
	fclose(file);
	CUdevice device;
	CUmodule module;
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&device, 0));
	CHECK(cuDevicePrimaryCtxRetain(&context, device));
	CHECK(cuCtxSetCurrent(context));
	CHECK(cuModuleLoadData(&module, ptx));
	CHECK(cuModuleGetFunction(&scale, module, "scale"));
	single_calls();
	if (argc > 3) {
		for (int i = 3; i < argc; i++) {
			run(atoi(argv[i]));
		}
	}
	else {
		run(1);
		run(16);
	}
	return 0;
}
