// SPDX-License-Identifier: BSD-3-Clause
/* CSV reading for the EuRoC files: whole file in memory, strict number parsing. */
#include "io/vf_csv.h"
#include "core/vf_fault.h"
#include "vf_csv.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vf_status vf_csv_fail(const vf_csv* c, vf_status status, const char* fmt, ...) {
  char msg[384];
  va_list args;
  va_start(args, fmt);
  vsnprintf(msg, sizeof msg, fmt, args);
  va_end(args);
  return vf_fail(NULL, status, "%s:%d: %s", c->name, c->line, msg);
}

vf_status vf_csv_open(vf_csv* c, const char* path, const char* display_name) {
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", display_name != NULL ? display_name : path);
  FILE* f = fopen(path, "rb");
  if (f == NULL) return vf_fail(NULL, VF_ERR_IO, "%s: cannot open: %s", c->name, strerror(errno));
  long size = -1;
  if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (size < 0 || (size_t)size > VF_CSV_MAX_BYTES || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return vf_fail(NULL, size < 0 ? VF_ERR_IO : VF_ERR_FORMAT, "%s: %s", c->name,
                   size < 0 ? "cannot determine the size" : "larger than 1 GB");
  }
  c->text = vf_malloc((size_t)size + 1);
  if (c->text == NULL) {
    fclose(f);
    return vf_fail(NULL, VF_ERR_NOMEM, "%s: %ld bytes", c->name, size);
  }
  size_t n = fread(c->text, 1, (size_t)size, f);
  fclose(f);
  if (n != (size_t)size) {
    vf_csv_close(c);
    return vf_fail(NULL, VF_ERR_IO, "%s: read error", c->name);
  }
  c->text[n] = '\0';
  if (memchr(c->text, '\0', n) != NULL) {
    vf_csv_close(c);
    return vf_fail(NULL, VF_ERR_FORMAT, "%s: binary data (a NUL byte) in a CSV file", c->name);
  }
  c->size = n;
  c->data_lines = 1;
  for (size_t i = 0; i < n; ++i) c->data_lines += c->text[i] == '\n';
  return VF_OK;
}

void vf_csv_close(vf_csv* c) {
  if (c == NULL) return;
  free(c->text);
  c->text = NULL;
}

static char* vf_trim(char* s) {
  while (*s == ' ' || *s == '\t') ++s;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
  return s;
}

vf_status vf_csv_next(vf_csv* c, char** fields, int max, int* count) {
  *count = 0;
  while (c->pos < c->size) {
    char* row = c->text + c->pos;
    char* nl = strchr(row, '\n');
    size_t len = nl != NULL ? (size_t)(nl - row) : strlen(row);
    c->pos += len + (nl != NULL);
    c->line++;
    row[len] = '\0';
    row = vf_trim(row);
    if (row[0] == '\0' || row[0] == '#') continue;
    int n = 0;
    for (char* f = row;;) {
      char* comma = strchr(f, ',');
      if (comma != NULL) *comma = '\0';
      if (n == max) {
        return vf_csv_fail(c, VF_ERR_FORMAT, "more than %d fields", max);
      }
      fields[n++] = vf_trim(f);
      if (comma == NULL) break;
      f = comma + 1;
    }
    *count = n;
    return VF_OK;
  }
  return VF_OK;
}

vf_status vf_csv_int64(const vf_csv* c, const char* field, int column, int64_t* out) {
  char* end = NULL;
  errno = 0;
  long long v = strtoll(field, &end, 10);
  if (field[0] == '\0' || *end != '\0' || errno == ERANGE) {
    return vf_csv_fail(c, VF_ERR_FORMAT, "column %d: '%.40s' is not an integer", column, field);
  }
  *out = (int64_t)v;
  return VF_OK;
}

vf_status vf_csv_double(const vf_csv* c, const char* field, int column, double* out) {
  char* end = NULL;
  errno = 0;
  double v = strtod(field, &end);
  if (field[0] == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v)) {
    return vf_csv_fail(c, VF_ERR_FORMAT, "column %d: '%.40s' is not a finite number", column,
                       field);
  }
  *out = v;
  return VF_OK;
}
