/*
 * The C side of dev.offload.benchmarks.BlasBitwise: the same sgemm, dgemm, sgemv and dgemv
 * cases on the same inputs (the same seeded generator), called on cuBLAS directly as
 * Offload calls it (a handle on a non-blocking stream, its workspace set after the
 * stream, the math mode), with no CUDA headers (dlopen of libcuda.so.1 and
 * libcublas.so.13, prototypes declared here). Writes each case's output matrix or vector
 * to DIR/c-<case>.bin; BlasBitwise then compares its own bytes with them. The cases and
 * the generator are written twice, here and in BlasBitwise.java: change both together.
 * Build: cc -O2 -o blas_bitwise blas_bitwise.c -ldl
 * Run:   ./blas_bitwise DIR [math mode: 0 default, 2 pedantic, 3 TF32 (0)] [workspace bytes (4194304)]
 *                       [libcublas path (libcublas.so.13)]
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static CUresult (*cuMemFree)(CUdeviceptr);
static CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
static CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);

static int (*cublasCreate)(cublasHandle_t *);
static int (*cublasSetStream)(cublasHandle_t, CUstream);
static int (*cublasSetWorkspace)(cublasHandle_t, void *, size_t);
static int (*cublasSetMathMode)(cublasHandle_t, int);
static int (*cublasSgemm)(cublasHandle_t, int, int, int, int, int, const float *, const void *, int, const void *,
		int, const float *, void *, int);
static int (*cublasDgemm)(cublasHandle_t, int, int, int, int, int, const double *, const void *, int, const void *,
		int, const double *, void *, int);
static int (*cublasSgemv)(cublasHandle_t, int, int, int, const float *, const void *, int, const void *, int,
		const float *, void *, int);
static int (*cublasDgemv)(cublasHandle_t, int, int, int, const double *, const void *, int, const void *, int,
		const double *, void *, int);

#define CHECK(call) do { int status_ = (call); if (status_ != 0) { \
	fprintf(stderr, "%s failed: %d (line %d)\n", #call, status_, __LINE__); exit(1); } } while (0)

/* A GEMM when k > 0, else a GEMV of the stored m x n matrix, with x and y in B's and C's places. */
struct blas_case {
	const char *name;
	int doubles, trans_a, trans_b, m, n, k, lda, ldb, ldc, incx, incy;
	double alpha, beta;
};

static const struct blas_case CASES[] = {
	{ "sgemm-nn", 0, 0, 0, 257, 129, 193, 257, 193, 257, 1, 1, 1.25, 0.5 },
	{ "sgemm-tn", 0, 1, 0, 128, 96, 200, 203, 200, 129, 1, 1, 1.0, 0.0 },
	{ "dgemm-nt", 1, 0, 1, 129, 65, 33, 129, 65, 129, 1, 1, -0.75, 1.0 },
	{ "sgemv-t", 0, 1, 0, 1000, 300, 0, 1000, 0, 0, 1, 1, 1.0, 0.25 },
	{ "dgemv-n", 1, 0, 0, 513, 257, 0, 520, 0, 0, 2, 1, 0.5, -1.0 },
};

/* Knuth's MMIX LCG; the top 24 bits give a value in [-1, 1) that a float holds exactly. */
static uint64_t state;

static double next_value(void) {
	state = state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double) (state >> 40) / 8388608.0 - 1.0;
}

static void *symbol(void *library, const char *name) {
	void *found = dlsym(library, name);
	if (found == NULL) {
		fprintf(stderr, "no %s: %s\n", name, dlerror());
		exit(1);
	}
	return found;
}

static CUdeviceptr upload(size_t elements, int doubles) {
	size_t size = doubles ? sizeof(double) : sizeof(float);
	unsigned char *host = malloc(elements * size);
	for (size_t i = 0; i < elements; i++) {
		double value = next_value();
		if (doubles) {
			((double *) host)[i] = value;
		}
		else {
			((float *) host)[i] = (float) value;
		}
	}
	CUdeviceptr device;
	CHECK(cuMemAlloc(&device, elements * size));
	CHECK(cuMemcpyHtoD(device, host, elements * size));
	free(host);
	return device;
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR [math mode] [workspace bytes] [libcublas path]\n", argv[0]);
		return 2;
	}
	const char *dir = argv[1];
	int math = (argc > 2) ? atoi(argv[2]) : 0;
	size_t workspace_bytes = (argc > 3) ? strtoull(argv[3], NULL, 10) : 4194304;
	const char *cublas_path = (argc > 4) ? argv[4] : "libcublas.so.13";
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	void *cublas = (cuda != NULL) ? dlopen(cublas_path, RTLD_NOW | RTLD_GLOBAL) : NULL;
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
	cuMemFree = symbol(cuda, "cuMemFree_v2");
	cuMemcpyHtoD = symbol(cuda, "cuMemcpyHtoD_v2");
	cuMemcpyDtoH = symbol(cuda, "cuMemcpyDtoH_v2");
	cublasCreate = symbol(cublas, "cublasCreate_v2");
	cublasSetStream = symbol(cublas, "cublasSetStream_v2");
	cublasSetWorkspace = symbol(cublas, "cublasSetWorkspace_v2");
	cublasSetMathMode = symbol(cublas, "cublasSetMathMode");
	cublasSgemm = symbol(cublas, "cublasSgemm_v2");
	cublasDgemm = symbol(cublas, "cublasDgemm_v2");
	cublasSgemv = symbol(cublas, "cublasSgemv_v2");
	cublasDgemv = symbol(cublas, "cublasDgemv_v2");

	CUdevice device;
	CUcontext context;
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&device, 0));
	CHECK(cuDevicePrimaryCtxRetain(&context, device));
	CHECK(cuCtxSetCurrent(context));
	CUstream stream;
	cublasHandle_t handle;
	CHECK(cuStreamCreate(&stream, 1 /* CU_STREAM_NON_BLOCKING */));
	CHECK(cublasCreate(&handle));
	CHECK(cublasSetStream(handle, stream));
	CUdeviceptr workspace = 0;
	if (workspace_bytes > 0) {
		CHECK(cuMemAlloc(&workspace, workspace_bytes));
	}
	CHECK(cublasSetWorkspace(handle, (void *) (uintptr_t) workspace, workspace_bytes));
	if (math != 0) {
		CHECK(cublasSetMathMode(handle, math));
	}
	printf("cuBLAS from C: math mode %d, workspace %zu bytes, into %s\n", math, workspace_bytes, dir);
	for (size_t index = 0; index < sizeof CASES / sizeof CASES[0]; index++) {
		const struct blas_case *c = &CASES[index];
		int gemm = c->k > 0;
		size_t size = c->doubles ? sizeof(double) : sizeof(float);
		size_t size_a = (size_t) c->lda * (gemm ? (c->trans_a == 0 ? c->k : c->m) : c->n);
		size_t size_b = gemm ? (size_t) c->ldb * (c->trans_b == 0 ? c->n : c->k)
				: 1 + (size_t) ((c->trans_a == 0 ? c->n : c->m) - 1) * c->incx;
		size_t size_c = gemm ? (size_t) c->ldc * c->n : 1 + (size_t) ((c->trans_a == 0 ? c->m : c->n) - 1) * c->incy;
		state = 0x0ff10adULL + index;
		CUdeviceptr a = upload(size_a, c->doubles);
		CUdeviceptr b = upload(size_b, c->doubles);
		CUdeviceptr out = upload(size_c, c->doubles);
		float alpha_f = (float) c->alpha, beta_f = (float) c->beta;
		const void *pa = (const void *) (uintptr_t) a, *pb = (const void *) (uintptr_t) b;
		void *pc = (void *) (uintptr_t) out;
		if (gemm && c->doubles) {
			CHECK(cublasDgemm(handle, c->trans_a, c->trans_b, c->m, c->n, c->k, &c->alpha, pa, c->lda, pb, c->ldb,
					&c->beta, pc, c->ldc));
		}
		else if (gemm) {
			CHECK(cublasSgemm(handle, c->trans_a, c->trans_b, c->m, c->n, c->k, &alpha_f, pa, c->lda, pb, c->ldb,
					&beta_f, pc, c->ldc));
		}
		else if (c->doubles) {
			CHECK(cublasDgemv(handle, c->trans_a, c->m, c->n, &c->alpha, pa, c->lda, pb, c->incx, &c->beta, pc,
					c->incy));
		}
		else {
			CHECK(cublasSgemv(handle, c->trans_a, c->m, c->n, &alpha_f, pa, c->lda, pb, c->incx, &beta_f, pc,
					c->incy));
		}
		CHECK(cuStreamSynchronize(stream));
		unsigned char *result = malloc(size_c * size);
		CHECK(cuMemcpyDtoH(result, out, size_c * size));
		char path[4096];
		snprintf(path, sizeof path, "%s/c-%s.bin", dir, c->name);
		FILE *file = fopen(path, "wb");
		if (file == NULL || fwrite(result, size, size_c, file) != size_c) {
			fprintf(stderr, "cannot write %s\n", path);
			return 1;
		}
		fclose(file);
		printf("%-9s %zu bytes\n", c->name, size_c * size);
		free(result);
		CHECK(cuMemFree(a));
		CHECK(cuMemFree(b));
		CHECK(cuMemFree(out));
	}
	return 0;
}
