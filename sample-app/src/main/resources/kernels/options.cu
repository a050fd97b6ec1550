// Option pricing kernels of the Offload sample app, compiled at startup by NVRTC for the GPU's architecture (or
// packaged at build time with -Pprecompile-kernels). The host backend runs the same algorithms from
// dev.offload.sample.pricing.OptionKernels, with the parameters declared here.

// NVRTC has no C library headers: the one type <stdint.h> would give.
typedef unsigned long long uint64_t;

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

__device__ uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

// A uniform double in (0, 1] from xorshift64*.
__device__ double next_uniform(uint64_t* state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return ((double) ((x * 0x2545F4914F6CDD1DULL) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

// Monte Carlo price of a European call: each thread simulates pathsPerThread terminal prices under geometric
// Brownian motion (Box-Muller normals, two paths per pair) and writes the sum and the sum of squares of its
// discounted payoffs to out[2 * id] and out[2 * id + 1].
extern "C" __global__ void monte_carlo(int pathsPerThread, double s, double k, double t, double r, double v,
        long long seed, double* out)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t state = splitmix64((uint64_t) seed + (uint64_t) id);
    if (state == 0) {
        state = 1;
    }
    double drift = (r - 0.5 * v * v) * t;
    double diffusion = v * sqrt(t);
    double discount = exp(-r * t);
    double sum = 0.0;
    double sumSquares = 0.0;
    for (int p = 0; p < pathsPerThread; p += 2) {
        double u1 = next_uniform(&state);
        double u2 = next_uniform(&state);
        double radius = sqrt(-2.0 * log(u1));
        double angle = 6.283185307179586 * u2;
        double z[2] = { radius * cos(angle), radius * sin(angle) };
        for (int j = 0; j < 2 && p + j < pathsPerThread; j++) {
            double terminal = s * exp(drift + diffusion * z[j]);
            double payoff = discount * fmax(terminal - k, 0.0);
            sum += payoff;
            sumSquares += payoff * payoff;
        }
    }
    out[2 * id] = sum;
    out[2 * id + 1] = sumSquares;
}
