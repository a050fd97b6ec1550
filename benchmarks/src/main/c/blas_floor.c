/*
 * The floor under dev.offload.benchmarks.cuda.BlasBenchmark: the same work from C, with no
 * CUDA headers (dlopen of libcuda.so.1 and libcublas.so.13, prototypes declared here):
 *   1. 8192 x 8192 sgemm, default math and TF32: median time and TFLOP/s;
 *   2. a 64 x 64 sgemm round trip on one thread (copy A and B in from page-locked memory,
 *      sgemm, copy C out, cuStreamSynchronize): p50 and p99;
 *   3. the same round trip on THREADS threads, each with its own stream and handle:
 *      round trips per second, ROUNDS times.
 * Build: cc -O2 -o blas_floor blas_floor.c -ldl -lpthread
 * Run:   ./blas_floor [iterations (20000)] [threads (16)] [libcublas path (libcublas.so.13)] [rounds (1)]
 *        [big: yes or no (yes)]
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;
typedef void *cublasHandle_t;

static CUresult (*cuInit)(unsigned int);
static CUresult (*cuDeviceGet)(CUdevice *, int);
static CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
static CUresult (*cuCtxSetCurrent)(CUcontext);
static CUresult (*cuStreamCreate)(CUstream *, unsigned int);
static CUresult (*cuStreamSynchronize)(CUstream);
static CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
static CUresult (*cuMemHostAlloc)(void **, size_t, unsigned int);
static CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
static CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);

static int (*cublasCreate)(cublasHandle_t *);
static int (*cublasSetStream)(cublasHandle_t, CUstream);
static int (*cublasSetMathMode)(cublasHandle_t, int);
static int (*cublasSgemm)(cublasHandle_t, int, int, int, int, int, const float *, const float *, int,
		const float *, int, const float *, float *, int);

static CUcontext context;

#define CHECK(call) do { int status_ = (call); if (status_ != 0) { \
	fprintf(stderr, "%s failed: %d (line %d)\n", #call, status_, __LINE__); exit(1); } } while (0)

static void *symbol(void *library, const char *name) {
	void *found = dlsym(library, name);
	if (found == NULL) {
		fprintf(stderr, "no %s: %s\n", name, dlerror());
		exit(1);
	}
	return found;
}

static double now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int compare(const void *a, const void *b) {
	double x = *(const double *) a, y = *(const double *) b;
	return (x > y) - (x < y);
}

struct small {
	CUstream stream;
	cublasHandle_t handle;
	float *host;
	CUdeviceptr a, b, c;
};

static void small_init(struct small *s) {
	size_t bytes = 64 * 64 * sizeof(float);
	CHECK(cuCtxSetCurrent(context));
	CHECK(cuStreamCreate(&s->stream, 1 /* CU_STREAM_NON_BLOCKING */));
	CHECK(cublasCreate(&s->handle));
	CHECK(cublasSetStream(s->handle, s->stream));
	CHECK(cuMemHostAlloc((void **) &s->host, 3 * bytes, 0));
	memset(s->host, 0, 3 * bytes);
	CHECK(cuMemAlloc(&s->a, bytes));
	CHECK(cuMemAlloc(&s->b, bytes));
	CHECK(cuMemAlloc(&s->c, bytes));
}

static void small_round_trip(struct small *s) {
	size_t bytes = 64 * 64 * sizeof(float);
	const float one = 1, zero = 0;
	CHECK(cuMemcpyHtoDAsync(s->a, s->host, bytes, s->stream));
	CHECK(cuMemcpyHtoDAsync(s->b, (char *) s->host + bytes, bytes, s->stream));
	CHECK(cublasSgemm(s->handle, 0, 0, 64, 64, 64, &one, (const float *) s->a, 64, (const float *) s->b, 64, &zero,
			(float *) s->c, 64));
	CHECK(cuMemcpyDtoHAsync((char *) s->host + 2 * bytes, s->c, bytes, s->stream));
	CHECK(cuStreamSynchronize(s->stream));
}

static int per_thread;
static volatile int go;

static void *worker(void *argument) {
	struct small *s = argument;
	CHECK(cuCtxSetCurrent(context));
	for (int i = 0; i < per_thread / 4; i++) {
		small_round_trip(s);
	}
	__atomic_add_fetch(&go, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&go, __ATOMIC_SEQ_CST) > 0) {
		/* wait for the start */
	}
	for (int i = 0; i < per_thread; i++) {
		small_round_trip(s);
	}
	return NULL;
}

int main(int argc, char **argv) {
	int iterations = (argc > 1) ? atoi(argv[1]) : 20000;
	int threads = (argc > 2) ? atoi(argv[2]) : 16;
	const char *cublas_path = (argc > 3) ? argv[3] : "libcublas.so.13";
	int rounds = (argc > 4) ? atoi(argv[4]) : 1;
	int run_big = (argc > 5) ? strcmp(argv[5], "no") != 0 : 1;
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	void *cublas = dlopen(cublas_path, RTLD_NOW | RTLD_GLOBAL);
	if (cuda == NULL || cublas == NULL) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	cuInit = symbol(cuda, "cuInit");
	cuDeviceGet = symbol(cuda, "cuDeviceGet");
	cuDevicePrimaryCtxRetain = symbol(cuda, "cuDevicePrimaryCtxRetain");
	cuCtxSetCurrent = symbol(cuda, "cuCtxSetCurrent");
	cuStreamCreate = symbol(cuda, "cuStreamCreate");
	cuStreamSynchronize = symbol(cuda, "cuStreamSynchronize");
	cuMemAlloc = symbol(cuda, "cuMemAlloc_v2");
	cuMemsetD8 = symbol(cuda, "cuMemsetD8_v2");
	cuMemHostAlloc = symbol(cuda, "cuMemHostAlloc");
	cuMemcpyHtoDAsync = symbol(cuda, "cuMemcpyHtoDAsync_v2");
	cuMemcpyDtoHAsync = symbol(cuda, "cuMemcpyDtoHAsync_v2");
	cublasCreate = symbol(cublas, "cublasCreate_v2");
	cublasSetStream = symbol(cublas, "cublasSetStream_v2");
	cublasSetMathMode = symbol(cublas, "cublasSetMathMode");
	cublasSgemm = symbol(cublas, "cublasSgemm_v2");

	CUdevice device;
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&device, 0));
	CHECK(cuDevicePrimaryCtxRetain(&context, device));
	CHECK(cuCtxSetCurrent(context));

	/* 1. 8192 x 8192 sgemm. */
	const int n = 8192;
	size_t big = (size_t) n * n * sizeof(float);
	CUdeviceptr a, b, c;
	CHECK(cuMemAlloc(&a, big));
	CHECK(cuMemAlloc(&b, big));
	CHECK(cuMemAlloc(&c, big));
	CHECK(cuMemsetD8(a, 0x3c, big));
	CHECK(cuMemsetD8(b, 0x3c, big));
	CUstream stream;
	cublasHandle_t handle;
	CHECK(cuStreamCreate(&stream, 1));
	CHECK(cublasCreate(&handle));
	CHECK(cublasSetStream(handle, stream));
	const char *modes[] = { "DEFAULT", "TF32" };
	const int codes[] = { 0, 3 };
	for (int m = 0; m < (run_big ? 2 : 0); m++) {
		CHECK(cublasSetMathMode(handle, codes[m]));
		double times[10];
		const float one = 1, zero = 0;
		for (int i = -2; i < 10; i++) {
			double start = now_ns();
			CHECK(cublasSgemm(handle, 0, 0, n, n, n, &one, (const float *) a, n, (const float *) b, n, &zero,
					(float *) c, n));
			CHECK(cuStreamSynchronize(stream));
			if (i >= 0) {
				times[i] = now_ns() - start;
			}
		}
		qsort(times, 10, sizeof(double), compare);
		printf("8192x8192 sgemm (%s): median %.2f ms, %.1f TFLOP/s (best %.2f ms)\n", modes[m], times[5] / 1e6,
				2.0 * n * n * n / times[5] / 1e3, times[0] / 1e6);
	}

	/* 2. 64 x 64 round trip, one thread. */
	struct small one_thread;
	small_init(&one_thread);
	for (int i = 0; i < iterations / 4; i++) {
		small_round_trip(&one_thread);
	}
	double *samples = malloc(sizeof(double) * iterations);
	for (int i = 0; i < iterations; i++) {
		double start = now_ns();
		small_round_trip(&one_thread);
		samples[i] = now_ns() - start;
	}
	qsort(samples, iterations, sizeof(double), compare);
	printf("64x64 sgemm round trip, 1 thread: p50 %.1f us, p99 %.1f us (%d)\n", samples[iterations / 2] / 1e3,
			samples[(int) (iterations * 0.99)] / 1e3, iterations);

	/* 3. 64 x 64 round trips, THREADS threads, a stream and a handle each. */
	per_thread = ((iterations / threads) > 0 ? iterations / threads : 1) * 4;
	struct small *each = calloc(threads, sizeof(struct small));
	pthread_t *ids = calloc(threads, sizeof(pthread_t));
	for (int t = 0; t < threads; t++) {
		small_init(&each[t]);
	}
	for (int round = 0; round < rounds; round++) {
		__atomic_store_n(&go, 0, __ATOMIC_SEQ_CST);
		for (int t = 0; t < threads; t++) {
			pthread_create(&ids[t], NULL, worker, &each[t]);
		}
		while (__atomic_load_n(&go, __ATOMIC_SEQ_CST) < threads) {
			/* warm-up */
		}
		double begin = now_ns();
		__atomic_store_n(&go, -1, __ATOMIC_SEQ_CST);
		for (int t = 0; t < threads; t++) {
			pthread_join(ids[t], NULL);
		}
		double seconds = (now_ns() - begin) / 1e9;
		printf("64x64 sgemm round trip, %d threads: %.0f round trips/s\n", threads,
				(double) per_thread * threads / seconds);
		fflush(stdout);
	}
	return 0;
}
