// SPDX-License-Identifier: BSD-3-Clause
/* Tiny assertion helpers shared by the tests: each check prints what failed and counts it;
 * VF_TEST_END returns non-zero when anything failed. VF_TEST_SKIP exits with ctest's skip code. */
#ifndef VF_TEST_H
#define VF_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VF_TEST_SKIP_CODE 77

static int vf_test_failures = 0;
static int vf_test_checks = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    ++vf_test_checks;                                                          \
    if (!(cond)) {                                                             \
      ++vf_test_failures;                                                      \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

#define CHECK_STATUS(expr, expected)                                                      \
  do {                                                                                    \
    vf_status vf_got_ = (expr);                                                           \
    ++vf_test_checks;                                                                     \
    if (vf_got_ != (expected)) {                                                          \
      ++vf_test_failures;                                                                 \
      fprintf(stderr, "%s:%d: %s gave %s (%s), expected %s\n", __FILE__, __LINE__, #expr, \
              vf_status_str(vf_got_), vf_last_error_message(), vf_status_str(expected));  \
    }                                                                                     \
  } while (0)

#define CHECK_OK(expr) CHECK_STATUS(expr, VF_OK)

/* An error status that also left a non-empty message. */
#define CHECK_FAILS(expr, expected)            \
  do {                                         \
    CHECK_STATUS(expr, expected);              \
    CHECK(vf_last_error_message()[0] != '\0'); \
  } while (0)

#define CHECK_NEAR(a, b, tol) CHECK(fabs((double)(a) - (double)(b)) <= (tol))

#define VF_TEST_SKIP(...)         \
  do {                            \
    printf("SKIP: " __VA_ARGS__); \
    printf("\n");                 \
    exit(VF_TEST_SKIP_CODE);      \
  } while (0)

#define VF_TEST_END(name)                                                           \
  do {                                                                              \
    printf("%s: %d checks, %d failed\n", (name), vf_test_checks, vf_test_failures); \
    return vf_test_failures == 0 ? 0 : 1;                                           \
  } while (0)

/* Skips (exit 77) in a build without CUDA or on a machine without a device. */
#define VF_TEST_REQUIRE_CUDA()                                       \
  do {                                                               \
    if (!vf_built_with_cuda()) VF_TEST_SKIP("built without CUDA");   \
    if (vf_cuda_device_count() == 0) VF_TEST_SKIP("no CUDA device"); \
  } while (0)

/* The start of a GPU parity test: skips (VF_TEST_REQUIRE_CUDA), else creates a CPU and a CUDA
 * context into `cpu` and `gpu`. */
#define VF_TEST_GPU_CONTEXTS(cpu, gpu)                      \
  do {                                                      \
    VF_TEST_REQUIRE_CUDA();                                 \
    vf_context_config vf_cc_ = vf_context_config_default(); \
    vf_cc_.backend = VF_BACKEND_CPU;                        \
    CHECK_OK(vf_context_create(&vf_cc_, &(cpu)));           \
    vf_cc_.backend = VF_BACKEND_CUDA;                       \
    CHECK_OK(vf_context_create(&vf_cc_, &(gpu)));           \
  } while (0)

/* The start of a test that runs on either backend: the CPU one, or CUDA when argv[1] is "--gpu"
 * (then VF_TEST_REQUIRE_CUDA). Sets `gpu` (an int) and creates the context into `ctx`. */
#define VF_TEST_BACKEND_CONTEXT(argc, argv, ctx, gpu)          \
  do {                                                         \
    (gpu) = (argc) > 1 && strcmp((argv)[1], "--gpu") == 0;     \
    if (gpu) VF_TEST_REQUIRE_CUDA();                           \
    vf_context_config vf_cc_ = vf_context_config_default();    \
    vf_cc_.backend = (gpu) ? VF_BACKEND_CUDA : VF_BACKEND_CPU; \
    CHECK_OK(vf_context_create(&vf_cc_, &(ctx)));              \
  } while (0)

/* Path of a file under the shared real-data folder (compiled in as VF_DATA_DIR), or NULL
 * when that folder is absent (a user's fresh clone). */
static inline const char* vf_test_data_path(const char* rel, char* buf, size_t size) {
  snprintf(buf, size, "%s/%s", VF_DATA_DIR, rel);
  FILE* f = fopen(buf, "rb");
  if (f == NULL) return NULL;
  fclose(f);
  return buf;
}

/* Deterministic pseudo-random bytes for test images. */
static inline unsigned vf_test_rand(unsigned* state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

#endif
