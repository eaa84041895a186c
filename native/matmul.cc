// A single-threaded float32 matrix product for the USE-lite worker (src/search/embedder/native-matmul.ts).
//
// Why native: TensorFlow.js's WASM backend runs the model's dense layers through XNNPACK at 25-31 GFLOP/s per
// core (128-bit SIMD, no fused multiply-add in WASM), and they are 4/5 of the model's time. The same products
// with 256-bit AVX2 and FMA run about twice as fast. This file is optional: it is built at install time when a
// compiler is there (scripts/build-native.mjs), and without it (or on a CPU without AVX2/FMA) the WASM kernels run.
//
// The product is the classic blocked one (Goto & van de Geijn): B is packed into panels of 16 columns, A into
// panels of 6 rows, for a block of 256 of the shared dimension, and a 6x16 register tile of fused multiply-adds
// walks them. Nothing here allocates per call except to grow two scratch buffers, kept per thread.
//
// On a CPU with AVX-512 the tile is 6x32 (two 16-float registers per row, B packed 32 columns wide): half the
// instructions for the same work. Each output is still the same chain of fused multiply-adds over the shared
// dimension in the same order, so both tiles give the same floats.

#include <node_api.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#define VT_X64 1
#include <immintrin.h>
#endif

namespace {

constexpr int64_t MR = 6;     // rows of the register tile
constexpr int64_t NR = 16;    // columns of the register tile (two 8-float registers)
constexpr int64_t NR512 = 32; // the same with AVX-512 (two 16-float registers)
constexpr int64_t KC = 256;   // shared dimension per packed block: a 6x256 A panel + a 256x16 B panel fit L1
constexpr int64_t MC = 96;    // rows of A packed at once (fits L2 with the B block)

// Scratch buffers, grown as needed and kept for the thread (each worker thread is one embedder).
struct Scratch {
  float* data = nullptr;
  size_t size = 0;
  float* get(size_t n) {
    if (n > size) {
      std::free(data);
      data = static_cast<float*>(std::aligned_alloc(64, ((n * sizeof(float) + 63) / 64) * 64));
      size = data ? n : 0;
    }
    return data;
  }
  ~Scratch() { std::free(data); }
};
thread_local Scratch packedA;
thread_local Scratch packedB;

#ifdef VT_X64
bool cpuHasAvx2Fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

// B[pc:pc+kc, 0:n] into panels of NR columns, each kc x NR contiguous; columns past n are zero.
void packB(const float* b, int64_t ldb, int64_t kc, int64_t n, int64_t nr, float* out) {
  for (int64_t j = 0; j < n; j += nr) {
    const int64_t cols = n - j < nr ? n - j : nr;
    for (int64_t p = 0; p < kc; p++) {
      const float* src = b + p * ldb + j;
      if (cols == nr) {
        std::memcpy(out, src, nr * sizeof(float));
      } else {
        std::memcpy(out, src, cols * sizeof(float));
        std::memset(out + cols, 0, (nr - cols) * sizeof(float));
      }
      out += nr;
    }
  }
}

// A[i:i+mc, pc:pc+kc] into panels of MR rows, interleaved by k (MR values per k); rows past mc are zero.
void packA(const float* a, int64_t lda, int64_t mc, int64_t kc, float* out) {
  for (int64_t i = 0; i < mc; i += MR) {
    const int64_t rows = mc - i < MR ? mc - i : MR;
    for (int64_t p = 0; p < kc; p++) {
      for (int64_t r = 0; r < rows; r++) out[r] = a[(i + r) * lda + p];
      for (int64_t r = rows; r < MR; r++) out[r] = 0.0f;
      out += MR;
    }
  }
}

// A finished register tile (rows x cols of t, nr floats a row) into c: stored, or added to what an earlier block of the shared dimension left.
void writeBack(const float* t, int64_t nr, float* c, int64_t ldc, int64_t rows, int64_t cols, bool add) {
  for (int64_t r = 0; r < rows; r++) {
    float* row = c + r * ldc;
    const float* src = t + r * nr;
    if (add) {
      for (int64_t j = 0; j < cols; j++) row[j] += src[j];
    } else {
      std::memcpy(row, src, cols * sizeof(float));
    }
  }
}

// C[0:rows, 0:cols] (+)= Apanel · Bpanel over kc. `add`: accumulate onto C (every block of the shared dimension but the first).
__attribute__((target("avx2,fma"))) void tile(int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc, int64_t rows,
                                              int64_t cols, bool add) {
  // 12 accumulators: the loops over the tile have constant bounds, so the compiler unrolls them into registers.
  __m256 acc[MR][2];
  for (int64_t r = 0; r < MR; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; p++) {
    const __m256 b0 = _mm256_load_ps(bp);
    const __m256 b1 = _mm256_load_ps(bp + 8);
    for (int64_t r = 0; r < MR; r++) {
      const __m256 a = _mm256_broadcast_ss(ap + r);
      acc[r][0] = _mm256_fmadd_ps(a, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(a, b1, acc[r][1]);
    }
    ap += MR;
    bp += NR;
  }
  alignas(32) float t[MR * NR];
  for (int64_t r = 0; r < MR; r++) {
    _mm256_store_ps(t + r * NR, acc[r][0]);
    _mm256_store_ps(t + r * NR + 8, acc[r][1]);
  }
  writeBack(t, NR, c, ldc, rows, cols, add);
}

// C[m x n] = A[m x k] · B[k x n], all row-major and dense.
__attribute__((target("avx512f"))) void tile512(int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc, int64_t rows,
                                                 int64_t cols, bool add) {
  __m512 acc[MR][2];
  for (int64_t r = 0; r < MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; p++) {
    const __m512 b0 = _mm512_load_ps(bp);
    const __m512 b1 = _mm512_load_ps(bp + 16);
    for (int64_t r = 0; r < MR; r++) {
      const __m512 a = _mm512_set1_ps(ap[r]);
      acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1]);
    }
    ap += MR;
    bp += NR512;
  }
  alignas(64) float t[MR * NR512];
  for (int64_t r = 0; r < MR; r++) {
    _mm512_store_ps(t + r * NR512, acc[r][0]);
    _mm512_store_ps(t + r * NR512 + 16, acc[r][1]);
  }
  writeBack(t, NR512, c, ldc, rows, cols, add);
}

bool cpuHasAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}
const bool kAvx512 = cpuHasAvx512();
// Columns of B's panels: what the tile in use reads.
int64_t panelWidth() { return kAvx512 ? NR512 : NR; }

void gemm(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n) {
  const int64_t nr = panelWidth();
  const auto run = kAvx512 ? tile512 : tile;
  const int64_t panelsN = (n + nr - 1) / nr;
  float* bp = packedB.get(static_cast<size_t>(KC * panelsN * nr));
  float* ap = packedA.get(static_cast<size_t>(MC * KC));
  if (!bp || !ap) return;  // checked by the caller through the scratch sizes
  for (int64_t pc = 0; pc < k; pc += KC) {
    const int64_t kc = k - pc < KC ? k - pc : KC;
    packB(b + pc * n, n, kc, n, nr, bp);
    for (int64_t ic = 0; ic < m; ic += MC) {
      const int64_t mc = m - ic < MC ? m - ic : MC;
      packA(a + ic * k + pc, k, mc, kc, ap);
      for (int64_t j = 0; j < panelsN; j++) {
        const int64_t cols = n - j * nr < nr ? n - j * nr : nr;
        for (int64_t i = 0; i < mc; i += MR) {
          const int64_t rows = mc - i < MR ? mc - i : MR;
          run(kc, ap + i * kc, bp + j * kc * nr, c + (ic + i) * n + j * nr, n, rows, cols, pc > 0);
        }
      }
    }
  }
}
#else
bool cpuHasAvx2Fma() { return false; }
int64_t panelWidth() { return 1; }
void gemm(const float*, const float*, float*, int64_t, int64_t, int64_t) {}
#endif

const bool kSupported = cpuHasAvx2Fma();

napi_value Throw(napi_env env, const char* message) {
  napi_throw_error(env, nullptr, message);
  return nullptr;
}

// A Float32Array argument's data and length, or nullptr.
float* FloatArray(napi_env env, napi_value value, size_t* length) {
  bool is = false;
  if (napi_is_typedarray(env, value, &is) != napi_ok || !is) return nullptr;
  napi_typedarray_type type;
  void* data = nullptr;
  if (napi_get_typedarray_info(env, value, &type, length, &data, nullptr, nullptr) != napi_ok || type != napi_float32_array) return nullptr;
  return static_cast<float*>(data);
}

// supported(): whether this CPU runs the kernel (x86-64 with AVX2 and FMA).
napi_value Supported(napi_env env, napi_callback_info) {
  napi_value result;
  napi_get_boolean(env, kSupported, &result);
  return result;
}

// matmul(a, b, c, m, k, n): c = a · b, row-major Float32Arrays of at least m*k, k*n and m*n values.
napi_value MatMul(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != 6) return Throw(env, "matmul(a, b, c, m, k, n) takes 6 arguments");
  if (!kSupported) return Throw(env, "this CPU lacks AVX2 and FMA");
  int64_t dims[3];
  for (int i = 0; i < 3; i++) {
    if (napi_get_value_int64(env, argv[3 + i], &dims[i]) != napi_ok || dims[i] <= 0 || dims[i] > (1 << 24)) return Throw(env, "m, k and n must be integers from 1 to 2^24");
  }
  const int64_t m = dims[0], k = dims[1], n = dims[2];
  size_t la = 0, lb = 0, lc = 0;
  const float* a = FloatArray(env, argv[0], &la);
  const float* b = FloatArray(env, argv[1], &lb);
  float* c = FloatArray(env, argv[2], &lc);
  if (!a || !b || !c) return Throw(env, "a, b and c must be Float32Arrays");
  if (static_cast<int64_t>(la) < m * k || static_cast<int64_t>(lb) < k * n || static_cast<int64_t>(lc) < m * n) return Throw(env, "a, b or c is shorter than m, k and n say");
  const int64_t nr = panelWidth();
  const int64_t panelsN = (n + nr - 1) / nr;
  if (!packedB.get(static_cast<size_t>(KC * panelsN * nr)) || !packedA.get(static_cast<size_t>(MC * KC))) return Throw(env, "out of memory");
  gemm(a, b, c, m, k, n);
  return nullptr;
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_property_descriptor properties[] = {
      {"supported", nullptr, Supported, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
      {"matmul", nullptr, MatMul, nullptr, nullptr, nullptr, napi_enumerable, nullptr},
  };
  napi_define_properties(env, exports, 2, properties);
  return exports;
}
