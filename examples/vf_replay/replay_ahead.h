// SPDX-License-Identifier: BSD-3-Clause
/* vf_replay's files decoded ahead of the frames that need them: a few threads decode the files
 * of the frames to come (the ground truth's depth and disparity PNGs, a rig's camera images), in
 * frame order, into a bounded ring, so that the replay finds them decoded. */
#ifndef REPLAY_AHEAD_H
#define REPLAY_AHEAD_H

#include <viofront/viofront.h>

#define REPLAY_AHEAD_MAX_KINDS 16

typedef struct replay_ahead replay_ahead;

/* Decodes file `which` of frame `frame` (at t_ns) into `image`, reusing its buffers; 1 when it
 * was read, 0 when the frame has no such file or it could not be read. Runs on the workers. */
typedef int (*replay_ahead_decode_fn)(const void* user, int frame, int64_t t_ns, int which,
                                      vf_image* image);

/* The `kinds` (at most REPLAY_AHEAD_MAX_KINDS) files of each of the `frames` frames at times
 * t_ns (increasing; copied), decoded by `decode` (given `user`, which must outlive the ring);
 * `threads` workers (>= 1) keep up to `depth` (>= 2) frames decoded. 0 on success, -1 when out
 * of memory or no thread starts. */
int replay_ahead_open(const int64_t* t_ns, int frames, int kinds, replay_ahead_decode_fn decode,
                      const void* user, int threads, int depth, replay_ahead** out);

/* The decoded file of kind `which` for the frame at t_ns, waiting for it if need be; frames are
 * asked for in time order, each any number of times, and asking for a later one gives up the
 * earlier ones. NULL when t_ns is no frame (or comes before one already given up) or the file
 * was not read; the image stays valid until a later frame is asked for. */
const vf_image* replay_ahead_get(replay_ahead* a, int64_t t_ns, int which);

/* Seconds spent waiting for decoded files so far. */
double replay_ahead_wait_s(const replay_ahead* a);

/* Stops the workers and frees everything; safe on NULL. */
void replay_ahead_close(replay_ahead* a);

#endif
