// SPDX-License-Identifier: BSD-3-Clause
/* A small CSV reader for the EuRoC files: the whole file in memory, rows split in place into
 * trimmed fields; blank lines and lines starting with '#' (EuRoC's header) are skipped; CRLF
 * line ends accepted. Failures name the file and line. */
#ifndef VF_CSV_H
#define VF_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "core/vf_error.h"

/* Files beyond this are refused (a full EuRoC IMU file is about 5 MB). */
#define VF_CSV_MAX_BYTES ((size_t)1 << 30)

typedef struct vf_csv {
  char* text; /* the file, NUL-terminated, split in place */
  size_t size;
  size_t pos;
  int line;       /* 1-based line of the row last returned */
  int data_lines; /* upper bound on rows: lines in the file */
  char name[512];
} vf_csv;

/* VF_ERR_IO when missing or unreadable. On success call vf_csv_close. */
vf_status vf_csv_open(vf_csv* c, const char* path, const char* display_name);
void vf_csv_close(vf_csv* c);

/* The next row split at commas into at most max fields (more gives VF_ERR_FORMAT); *count is
 * 0 at the end of the file. */
vf_status vf_csv_next(vf_csv* c, char** fields, int max, int* count);

/* Parses a whole field; the message names file, line and column (1-based). */
vf_status vf_csv_int64(const vf_csv* c, const char* field, int column, int64_t* out);
vf_status vf_csv_double(const vf_csv* c, const char* field, int column, double* out);

vf_status vf_csv_fail(const vf_csv* c, vf_status status, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
