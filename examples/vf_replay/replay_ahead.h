// SPDX-License-Identifier: BSD-3-Clause
/* vf_replay's ground-truth files decoded ahead of the frames that need them: a few threads read
 * groundtruth/depth0/<t>.png and groundtruth/disparity/<t>.png of the sequence's stereo pairs, in
 * pair order, into a bounded ring, so that the evaluation finds them decoded. */
#ifndef REPLAY_AHEAD_H
#define REPLAY_AHEAD_H

#include <viofront/viofront.h>

typedef struct replay_ahead replay_ahead;

/* The files of the pairs of `reader` under `root`/groundtruth/<kind[i]>/<t>.png for the `kinds`
 * (at most 2) sub-folders, 16-bit grey; `threads` workers (>= 1) keep up to `depth` (>= 2) pairs
 * decoded. 0 on success, -1 when out of memory or no thread starts. */
int replay_ahead_open(const char* root, const vf_euroc* reader, const char* const* kind, int kinds,
                      int threads, int depth, replay_ahead** out);

/* The decoded file of kind `which` for the pair at t_ns, waiting for it if need be; pairs are
 * asked for in time order, each any number of times, and asking for a later one gives up the
 * earlier ones. NULL when t_ns is no pair (or comes before one already given up) or the file
 * could not be read; the image stays valid until a later pair is asked for. */
const vf_image* replay_ahead_get(replay_ahead* a, int64_t t_ns, int which);

/* Seconds spent waiting for decoded files so far. */
double replay_ahead_wait_s(const replay_ahead* a);

/* Stops the workers and frees everything; safe on NULL. */
void replay_ahead_close(replay_ahead* a);

#endif
