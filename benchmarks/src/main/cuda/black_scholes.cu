// The Black-Scholes kernel of the small-work benchmark (the sample app's pricing kernel). Regenerate the PTX with
// scripts/gpu/build-ptx.sh. The host backend runs the same formula from dev.offload.benchmarks.BlackScholesKernel.

// European call and put prices by the Black-Scholes closed form.
// in: n spots, then n strikes, n maturities (years), n rates, n volatilities; out: n calls, then n puts.
extern "C" __global__ void black_scholes(int n, const double* in, double* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    double s = in[i];
    double k = in[n + i];
    double t = in[2 * n + i];
    double r = in[3 * n + i];
    double v = in[4 * n + i];
    double sqrtT = sqrt(t);
    double d1 = (log(s / k) + (r + 0.5 * v * v) * t) / (v * sqrtT);
    double d2 = d1 - v * sqrtT;
    double discount = k * exp(-r * t);
    out[i] = s * normcdf(d1) - discount * normcdf(d2);
    out[n + i] = discount * normcdf(-d2) - s * normcdf(-d1);
}
