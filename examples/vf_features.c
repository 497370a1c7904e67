// SPDX-License-Identifier: BSD-3-Clause
/* The frontend's callback API in one page: replay an EuRoC folder, print every 20th feature
 * frame. Usage: vf_features SEQUENCE (a folder holding mav0, e.g. one vf_synth wrote). */
#include <stdio.h>
#include <viofront/viofront.h>

/* The library never prints: its warnings (e.g. images listed but missing) come here. */
static void on_log(vf_log_level level, const char* message, void* user) {
  fprintf(stderr, "viofront: %s\n", message);
}

static void on_features(const vf_feature_frame* frame, void* user) {
  int* frames = user;
  if ((*frames)++ % 20 != 0) return;
  printf("t %lld ns: %d records (%d tracked, %d new), stereo %.3f ms\n", (long long)frame->t_ns,
         frame->count, frame->tracked, frame->detected, frame->times.stereo_ms);
  for (int i = 0; i < frame->count && i < 3; ++i) {
    const vf_feature* f = &frame->features[i];
    printf("  track %llu cam %d: pixel (%.2f, %.2f), normalized (%.4f, %.4f), depth %.2f m\n",
           (unsigned long long)f->id, f->camera, f->u, f->v, f->x, f->y, f->depth_m);
  }
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: vf_features SEQUENCE\n");
    return 2;
  }
  vf_context* ctx = NULL;
  vf_euroc* seq = NULL;
  vf_frontend* fe = NULL;
  int frames = 0;
  vf_frontend_config fc = vf_frontend_config_default();
  vf_frontend_callbacks cb = {on_features, NULL, &frames};
  vf_euroc_config ec = vf_euroc_config_default();
  vf_context_config cc = vf_context_config_default(); /* AUTO: CUDA when present, else CPU */
  cc.log_fn = on_log;                                 /* warnings and errors */
  vf_status s = vf_context_create(&cc, &ctx);
  if (s == VF_OK) s = vf_euroc_open(argv[1], &ec, ctx, &seq);
  if (s == VF_OK) s = vf_euroc_camera(seq, 0, &fc.cam0);
  if (s == VF_OK) s = vf_euroc_camera(seq, 1, &fc.cam1);
  if (s == VF_OK) s = vf_frontend_create(ctx, &fc, &cb, &fe);
  vf_euroc_event ev;
  while (s == VF_OK && (s = vf_euroc_next(seq, &ev)) == VF_OK && ev.type != VF_EUROC_END) {
    if (ev.type == VF_EUROC_IMU) {
      s = vf_frontend_push_imu(fe, ev.t_ns, ev.imu.gyro, ev.imu.acc);
    } else {
      s = vf_frontend_process(fe, ev.t_ns, &ev.left, &ev.right);
    }
  }
  if (s != VF_OK) fprintf(stderr, "%s: %s\n", vf_status_str(s), vf_last_error_message());
  printf("%d frames\n", frames);
  vf_frontend_destroy(fe);
  vf_euroc_close(seq);
  vf_context_destroy(ctx);
  return s == VF_OK ? 0 : 1;
}
