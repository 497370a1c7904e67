// SPDX-License-Identifier: BSD-3-Clause
/* The library's measurement switches: environment variables that pin a choice the library
 * otherwise makes from the device's size (VF_DETECTOR_CELLS_PER_BLOCK, VF_PYRAMID_QUAD, ...), so
 * that the tests and benchmarks can run every path on any GPU. */
#ifndef VF_ENV_H
#define VF_ENV_H

/* The digit the environment variable `name` holds when it is exactly one digit in lo..hi (0 <= lo
 * <= hi <= 9), else -1 (unset, empty, or anything else: the library's own choice). */
int vf_env_digit(const char* name, int lo, int hi);

#endif
