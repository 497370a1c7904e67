// SPDX-License-Identifier: BSD-3-Clause
/* vf_faultsoak (issue 17): a real EuRoC sequence replayed lap after lap through the frontend with
 * faults injected: in the files of each lap (corrupted and truncated PNGs, a missing image, a
 * truncated CSV row) and in the stream (dropped and duplicated frames, IMU gaps). Every fault
 * must be reported exactly once (a status or a warning naming it), track ids never come back,
 * and memory and file descriptors stay flat. The pieces: the lap folder and its file faults,
 * the replay with stream faults and the bookkeeping. */
#ifndef VF_FAULTSOAK_H
#define VF_FAULTSOAK_H

#include <stdint.h>
#include <viofront/viofront.h>

/* Lines of a text file, kept in memory. */
typedef struct fs_lines {
  char* text;
  char** line;
  int count;
} fs_lines;

/* What a lap's files carry. */
typedef struct fs_file_faults {
  int csv_cam;         /* -1 none, 0/1 camera data.csv, 2 imu0/data.csv: one row truncated */
  int csv_row;         /* data row index */
  char bad_png[4][64]; /* names of corrupted (0, 1) and truncated (2, 3) images */
  int bad_cam[4];
  char missing[64]; /* name of a cam1 image removed, "" for none */
} fs_file_faults;

/* The lap folder: symbolic links to the original images and sensor files, data.csv files
 * written for each lap. */
typedef struct fs_lap_dir {
  char src[1024];  /* the original mav0 folder */
  char root[1024]; /* the lap's sequence folder (holding mav0) */
  fs_lines cam[2], imu;
} fs_lap_dir;

int fs_lines_read(const char* path, fs_lines* out);
void fs_lines_free(fs_lines* l);

int fs_lap_dir_create(const char* sequence, const char* work, fs_lap_dir* d);
void fs_lap_dir_free(fs_lap_dir* d);
/* Writes the lap's data.csv files and bad images as `f` says (random choices from *seed). */
int fs_lap_prepare(fs_lap_dir* d, unsigned* seed, int with_csv_fault, fs_file_faults* f);
/* Puts back the links the lap replaced. */
int fs_lap_restore(fs_lap_dir* d, const fs_file_faults* f);

unsigned fs_rand(unsigned* seed);

#endif
