/*
 * A stand-in for libcublas, compiled by the tests with cc: each function appends its
 * arguments as one line to "<this library's path>.log" and returns the status that
 * "<this library's path>.fail" names for it ("cublasSgemm_v2 13" lines), or 0. Scalars
 * are printed with the address cuBLAS would read them from; device pointers as given.
 */
#include "fake-library.h"

int cublasGetProperty(int type, int *value) {
	*value = (type == 0) ? 13 : (type == 1) ? 0 : 2;
	return 0;
}

int cublasCreate_v2(void **handle) {
	*handle = (void *) (uintptr_t) 0xb1a5;
	return record("cublasCreate_v2", "");
}

int cublasDestroy_v2(void *handle) {
	return record("cublasDestroy_v2", "h=%llx", P(handle));
}

int cublasSetStream_v2(void *handle, void *stream) {
	return record("cublasSetStream_v2", "h=%llx,stream=%llx", P(handle), P(stream));
}

int cublasSetWorkspace_v2(void *handle, void *workspace, size_t bytes) {
	return record("cublasSetWorkspace_v2", "h=%llx,workspace=%llx,bytes=%zu", P(handle), P(workspace), bytes);
}

int cublasSetMathMode(void *handle, int mode) {
	return record("cublasSetMathMode", "h=%llx,mode=%d", P(handle), mode);
}

int cublasSetPointerMode_v2(void *handle, int mode) {
	return record("cublasSetPointerMode_v2", "h=%llx,mode=%d", P(handle), mode);
}

int cublasSgemm_v2(void *handle, int ta, int tb, int m, int n, int k, const float *alpha, const void *a, int lda,
		const void *b, int ldb, const float *beta, void *c, int ldc) {
	return record("cublasSgemm_v2",
			"h=%llx,ta=%d,tb=%d,m=%d,n=%d,k=%d,alpha=%.9g@%llx,a=%llx,lda=%d,b=%llx,ldb=%d,beta=%.9g@%llx,c=%llx,ldc=%d",
			P(handle), ta, tb, m, n, k, *alpha, P(alpha), P(a), lda, P(b), ldb, *beta, P(beta), P(c), ldc);
}

int cublasDgemm_v2(void *handle, int ta, int tb, int m, int n, int k, const double *alpha, const void *a, int lda,
		const void *b, int ldb, const double *beta, void *c, int ldc) {
	return record("cublasDgemm_v2",
			"h=%llx,ta=%d,tb=%d,m=%d,n=%d,k=%d,alpha=%.17g@%llx,a=%llx,lda=%d,b=%llx,ldb=%d,beta=%.17g@%llx,c=%llx,ldc=%d",
			P(handle), ta, tb, m, n, k, *alpha, P(alpha), P(a), lda, P(b), ldb, *beta, P(beta), P(c), ldc);
}

int cublasSgemmStridedBatched(void *handle, int ta, int tb, int m, int n, int k, const float *alpha, const void *a,
		int lda, long long sa, const void *b, int ldb, long long sb, const float *beta, void *c, int ldc, long long sc,
		int count) {
	return record("cublasSgemmStridedBatched",
			"h=%llx,ta=%d,tb=%d,m=%d,n=%d,k=%d,alpha=%.9g@%llx,a=%llx,lda=%d,strideA=%lld,b=%llx,ldb=%d,strideB=%lld,"
			"beta=%.9g@%llx,c=%llx,ldc=%d,strideC=%lld,batchCount=%d",
			P(handle), ta, tb, m, n, k, *alpha, P(alpha), P(a), lda, sa, P(b), ldb, sb, *beta, P(beta), P(c), ldc, sc,
			count);
}

int cublasDgemmStridedBatched(void *handle, int ta, int tb, int m, int n, int k, const double *alpha, const void *a,
		int lda, long long sa, const void *b, int ldb, long long sb, const double *beta, void *c, int ldc,
		long long sc, int count) {
	return record("cublasDgemmStridedBatched",
			"h=%llx,ta=%d,tb=%d,m=%d,n=%d,k=%d,alpha=%.17g@%llx,a=%llx,lda=%d,strideA=%lld,b=%llx,ldb=%d,strideB=%lld,"
			"beta=%.17g@%llx,c=%llx,ldc=%d,strideC=%lld,batchCount=%d",
			P(handle), ta, tb, m, n, k, *alpha, P(alpha), P(a), lda, sa, P(b), ldb, sb, *beta, P(beta), P(c), ldc, sc,
			count);
}

int cublasSgemv_v2(void *handle, int trans, int m, int n, const float *alpha, const void *a, int lda, const void *x,
		int incx, const float *beta, void *y, int incy) {
	return record("cublasSgemv_v2",
			"h=%llx,trans=%d,m=%d,n=%d,alpha=%.9g@%llx,a=%llx,lda=%d,x=%llx,incx=%d,beta=%.9g@%llx,y=%llx,incy=%d",
			P(handle), trans, m, n, *alpha, P(alpha), P(a), lda, P(x), incx, *beta, P(beta), P(y), incy);
}

int cublasDgemv_v2(void *handle, int trans, int m, int n, const double *alpha, const void *a, int lda, const void *x,
		int incx, const double *beta, void *y, int incy) {
	return record("cublasDgemv_v2",
			"h=%llx,trans=%d,m=%d,n=%d,alpha=%.17g@%llx,a=%llx,lda=%d,x=%llx,incx=%d,beta=%.17g@%llx,y=%llx,incy=%d",
			P(handle), trans, m, n, *alpha, P(alpha), P(a), lda, P(x), incx, *beta, P(beta), P(y), incy);
}

int cublasSaxpy_v2(void *handle, int n, const float *alpha, const void *x, int incx, void *y, int incy) {
	return record("cublasSaxpy_v2", "h=%llx,n=%d,alpha=%.9g@%llx,x=%llx,incx=%d,y=%llx,incy=%d", P(handle), n, *alpha,
			P(alpha), P(x), incx, P(y), incy);
}

int cublasDaxpy_v2(void *handle, int n, const double *alpha, const void *x, int incx, void *y, int incy) {
	return record("cublasDaxpy_v2", "h=%llx,n=%d,alpha=%.17g@%llx,x=%llx,incx=%d,y=%llx,incy=%d", P(handle), n,
			*alpha, P(alpha), P(x), incx, P(y), incy);
}

int cublasSdot_v2(void *handle, int n, const void *x, int incx, const void *y, int incy, void *result) {
	return record("cublasSdot_v2", "h=%llx,n=%d,x=%llx,incx=%d,y=%llx,incy=%d,result=%llx", P(handle), n, P(x), incx,
			P(y), incy, P(result));
}

int cublasDdot_v2(void *handle, int n, const void *x, int incx, const void *y, int incy, void *result) {
	return record("cublasDdot_v2", "h=%llx,n=%d,x=%llx,incx=%d,y=%llx,incy=%d,result=%llx", P(handle), n, P(x), incx,
			P(y), incy, P(result));
}

const char *cublasGetStatusName(int status) {
	static __thread char name[64];
	snprintf(name, sizeof name, status == 13 ? "CUBLAS_STATUS_EXECUTION_FAILED" : "FAKE_STATUS_%d", status);
	return name;
}

const char *cublasGetStatusString(int status) {
	static __thread char text[64];
	snprintf(text, sizeof text, "the fake's status %d", status);
	return text;
}
