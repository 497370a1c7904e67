// SPDX-License-Identifier: BSD-3-Clause
/* vf_feature_set_track in two halves (the library's own use: the frontend queues more GPU work
 * behind the tracking before it waits for the tracking's results). */
#ifndef VF_FEATURE_SET_INTERNAL_H
#define VF_FEATURE_SET_INTERNAL_H

#include "viofront/vf_feature_set.h"

/* vf_feature_set_track's checks and the tracking queued (the CPU backend tracks at once); the
 * set is unchanged until the finish, and must not be changed before it. */
vf_status vf_feature_set_track_submit(vf_feature_set* set, vf_tracker* tracker,
                                      const vf_pyramid* prev, const vf_pyramid* cur,
                                      const float* predicted_xy);
/* The next tracking's start levels (vf_tracker_set_start_levels): guessed says whether its
 * guesses are the gyroscope's; when this call's and the previous call's both said so, each track
 * starts from the levels its last miss of its guess asks for (vf_lk_levels_for with the config's
 * start_radius; all while unknown), else all levels. Applies to the next submit only. */
void vf_feature_set_plan_levels(vf_feature_set* set, int guessed);
/* Waits for the tracking and applies it (checks, losses), as vf_feature_set_track does;
 * VF_ERR_STATE without a submit. */
vf_status vf_feature_set_track_finish(vf_feature_set* set, vf_tracker* tracker,
                                      vf_track_stats* stats);

#endif
