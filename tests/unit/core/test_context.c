// SPDX-License-Identifier: BSD-3-Clause
/* Context creation, backend choice, argument checks, device info and the log callback. */
#include <viofront/viofront.h>

#include "vf_test.h"

static int log_calls = 0;
static void count_log(vf_log_level level, const char* message, void* user) {
  (void)level;
  (void)message;
  ++*(int*)user;
}

int main(void) {
  vf_context* ctx = NULL;
  vf_context_config c = vf_context_config_default();
  CHECK(c.backend == VF_BACKEND_AUTO);

  /* AUTO resolves to a real backend. */
  CHECK_OK(vf_context_create(&c, &ctx));
  CHECK(vf_context_backend(ctx) == (vf_cuda_device_count() > 0 ? VF_BACKEND_CUDA : VF_BACKEND_CPU));
  vf_context_destroy(ctx);

  /* A NULL config means the defaults. */
  CHECK_OK(vf_context_create(NULL, &ctx));
  vf_context_destroy(ctx);

  c.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&c, &ctx));
  vf_device_info info;
  CHECK_OK(vf_context_device_info(ctx, &info));
  CHECK(strcmp(info.name, "CPU") == 0 && info.multiprocessors >= 1);
  CHECK(vf_context_cuda_stream(ctx) == NULL);
  CHECK_OK(vf_context_synchronize(ctx));
  CHECK_FAILS(vf_context_device_info(ctx, NULL), VF_ERR_INVALID_ARG);
  vf_context_destroy(ctx);
  vf_context_destroy(NULL); /* safe */

  /* Asking for CUDA without a device is a clear error, not a silent CPU fallback. */
  c.backend = VF_BACKEND_CUDA;
  if (vf_cuda_device_count() == 0) {
    CHECK_FAILS(vf_context_create(&c, &ctx), VF_ERR_NO_DEVICE);
    CHECK(ctx == NULL);
  }
  c.cuda_device = 1000;
  CHECK_FAILS(vf_context_create(&c, &ctx), VF_ERR_NO_DEVICE);

  /* Out-of-range fields. */
  c = vf_context_config_default();
  c.backend = (vf_backend)7;
  CHECK_FAILS(vf_context_create(&c, &ctx), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "backend") != NULL);
  c = vf_context_config_default();
  c.cpu_threads = -1;
  CHECK_FAILS(vf_context_create(&c, &ctx), VF_ERR_INVALID_ARG);
  c = vf_context_config_default();
  c.cuda_device = -2;
  CHECK_FAILS(vf_context_create(&c, &ctx), VF_ERR_INVALID_ARG);
  c = vf_context_config_default();
  c.log_level = (vf_log_level)42;
  CHECK_FAILS(vf_context_create(&c, &ctx), VF_ERR_INVALID_ARG);
  CHECK(strcmp(vf_backend_name(VF_BACKEND_CUDA), "cuda") == 0);

  /* The log callback gets messages at or above its level; silent otherwise. */
  c = vf_context_config_default();
  c.backend = VF_BACKEND_CPU;
  c.log_fn = count_log;
  c.log_user = &log_calls;
  c.log_level = VF_LOG_INFO;
  CHECK_OK(vf_context_create(&c, &ctx));
  CHECK(log_calls == 1);
  vf_context_destroy(ctx);
  c.log_level = VF_LOG_SILENT;
  CHECK_OK(vf_context_create(&c, &ctx));
  CHECK(log_calls == 1);
  vf_context_destroy(ctx);

  /* Timers on the CPU backend measure a monotonic clock. */
  c = vf_context_config_default();
  c.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&c, &ctx));
  vf_timer* timer = NULL;
  double ms = -1.0;
  CHECK_OK(vf_timer_create(ctx, &timer));
  CHECK_FAILS(vf_timer_stop(timer, &ms), VF_ERR_STATE);
  CHECK_OK(vf_timer_start(timer));
  CHECK_OK(vf_timer_stop(timer, &ms));
  CHECK(ms >= 0.0 && ms < 1000.0);
  CHECK_FAILS(vf_timer_stop(timer, NULL), VF_ERR_INVALID_ARG);
  vf_timer_destroy(timer);
  CHECK_FAILS(vf_timer_create(NULL, &timer), VF_ERR_INVALID_ARG);
  vf_context_destroy(ctx);
  VF_TEST_END("test_context");
}
