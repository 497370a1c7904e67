// SPDX-License-Identifier: BSD-3-Clause
/* The lap folder of vf_faultsoak and the faults in its files: every image a symbolic link to the
 * original except the lap's bad ones (a copy with bytes flipped in the middle, a copy cut in
 * half, or no file at all), data.csv files rewritten each lap (one row cut short in some laps). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "faultsoak.h"

unsigned fs_rand(unsigned* seed) {
  *seed = *seed * 1664525u + 1013904223u;
  return *seed >> 8;
}

static char* read_all(const char* path, long* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  char* buf = NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (*size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    buf = malloc((size_t)*size + 1);
    if (buf != NULL && fread(buf, 1, (size_t)*size, f) != (size_t)*size) {
      free(buf);
      buf = NULL;
    }
  }
  fclose(f);
  if (buf != NULL) buf[*size] = '\0';
  return buf;
}

int fs_lines_read(const char* path, fs_lines* out) {
  memset(out, 0, sizeof *out);
  long size = 0;
  out->text = read_all(path, &size);
  if (out->text == NULL) return -1;
  int n = 0;
  for (long i = 0; i < size; ++i) n += out->text[i] == '\n';
  out->line = malloc(sizeof *out->line * (size_t)(n + 1));
  if (out->line == NULL) return -1;
  for (char* p = out->text; *p != '\0';) {
    char* e = strchr(p, '\n');
    out->line[out->count++] = p;
    if (e == NULL) break;
    *e = '\0';
    if (e > p && e[-1] == '\r') e[-1] = '\0';
    p = e + 1;
  }
  return 0;
}

void fs_lines_free(fs_lines* l) {
  free(l->text);
  free(l->line);
  memset(l, 0, sizeof *l);
}

static int make_link(const char* target, const char* path) {
  if (unlink(path) != 0 && errno != ENOENT) return -1;
  return symlink(target, path);
}

/* The image name of a camera data.csv row ("t,name"), or NULL for a comment. */
static const char* row_name(const char* line, char* buf, size_t size) {
  const char* c = strchr(line, ',');
  if (line[0] == '#' || c == NULL) return NULL;
  snprintf(buf, size, "%s", c + 1);
  return buf;
}

/* Links every image of the lap folder to its original: those `f` replaced, or all (f NULL). */
static int relink(fs_lap_dir* d, const fs_file_faults* f) {
  char path[2048], target[2048], name[64];
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < d->cam[k].count; ++i) {
      if (row_name(d->cam[k].line[i], name, sizeof name) == NULL) continue;
      int bad = f == NULL || (k == 1 && strcmp(name, f->missing) == 0);
      for (int j = 0; f != NULL && j < 4; ++j)
        bad |= f->bad_cam[j] == k && strcmp(name, f->bad_png[j]) == 0;
      snprintf(target, sizeof target, "%s/cam%d/data/%s", d->src, k, name);
      snprintf(path, sizeof path, "%s/mav0/cam%d/data/%s", d->root, k, name);
      struct stat st;
      if (!bad && lstat(path, &st) == 0) continue; /* already a link */
      if (access(target, F_OK) != 0) continue;     /* listed but absent in the original too */
      if (make_link(target, path) != 0) return -1;
    }
  }
  return 0;
}

/* mav0/cam0, cam1 (data/ with a link per image), imu0; sensor.yaml linked. */
int fs_lap_dir_create(const char* sequence, const char* work, fs_lap_dir* d) {
  memset(d, 0, sizeof *d);
  char path[2048], target[2048], cwd[256] = "";
  /* The links must name the originals from anywhere: an absolute path. */
  if (sequence[0] != '/' && getcwd(cwd, sizeof cwd) == NULL) return -1;
  if (strlen(sequence) > 700) return -1;
  snprintf(d->src, sizeof d->src, "%s%s%s/mav0", cwd, cwd[0] != '\0' ? "/" : "", sequence);
  snprintf(d->root, sizeof d->root, "%s/lap", work);
  const char* dirs[] = {"",           "/mav0",           "/mav0/cam0", "/mav0/cam0/data",
                        "/mav0/cam1", "/mav0/cam1/data", "/mav0/imu0"};
  mkdir(work, 0755);
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; ++i) {
    snprintf(path, sizeof path, "%s%s", d->root, dirs[i]);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) return -1;
  }
  const char* sensors[] = {"cam0", "cam1", "imu0"};
  for (int k = 0; k < 3; ++k) {
    snprintf(target, sizeof target, "%s/%s/sensor.yaml", d->src, sensors[k]);
    snprintf(path, sizeof path, "%s/mav0/%s/sensor.yaml", d->root, sensors[k]);
    if (make_link(target, path) != 0) return -1;
  }
  for (int k = 0; k < 2; ++k) {
    snprintf(path, sizeof path, "%s/cam%d/data.csv", d->src, k);
    if (fs_lines_read(path, &d->cam[k]) != 0) return -1;
  }
  snprintf(path, sizeof path, "%s/imu0/data.csv", d->src);
  if (fs_lines_read(path, &d->imu) != 0) return -1;
  return relink(d, NULL);
}

void fs_lap_dir_free(fs_lap_dir* d) {
  fs_lines_free(&d->cam[0]);
  fs_lines_free(&d->cam[1]);
  fs_lines_free(&d->imu);
}

static int write_csv(const char* path, const fs_lines* l, int cut_row) {
  FILE* f = fopen(path, "w");
  if (f == NULL) return -1;
  for (int i = 0, row = 0; i < l->count; ++i) {
    if (l->line[i][0] == '#' || l->line[i][0] == '\0') {
      fprintf(f, "%s\n", l->line[i]);
      continue;
    }
    /* A row cut short, as a recorder killed while writing leaves it (then the rest follows). */
    if (row++ == cut_row) {
      fprintf(f, "%.*s\n", (int)(strchr(l->line[i], ',') - l->line[i]), l->line[i]);
    } else {
      fprintf(f, "%s\n", l->line[i]);
    }
  }
  return fclose(f);
}

/* A copy of the image, corrupted (bytes flipped in the middle) or cut in half. */
static int write_bad_png(const fs_lap_dir* d, int cam, const char* name, int truncate) {
  char src[2048], dst[2048];
  snprintf(src, sizeof src, "%s/cam%d/data/%s", d->src, cam, name);
  snprintf(dst, sizeof dst, "%s/mav0/cam%d/data/%s", d->root, cam, name);
  long size = 0;
  char* buf = read_all(src, &size);
  if (buf == NULL) return -1;
  if (!truncate) {
    for (long i = size / 2; i < size / 2 + 16 && i < size; ++i) buf[i] ^= 0x5a;
  }
  unlink(dst);
  FILE* f = fopen(dst, "wb");
  int ok = f != NULL && fwrite(buf, 1, (size_t)(truncate ? size / 2 : size), f) > 0;
  if (f != NULL && fclose(f) != 0) ok = 0;
  free(buf);
  return ok ? 0 : -1;
}

/* A data row of camera `cam` (its image name), picked at random. */
static int random_row(const fs_lines* l, unsigned* seed, char* name, size_t size) {
  for (int tries = 0; tries < 100; ++tries) {
    int i = (int)(fs_rand(seed) % (unsigned)l->count);
    if (row_name(l->line[i], name, size) != NULL) return i;
  }
  return -1;
}

int fs_lap_prepare(fs_lap_dir* d, unsigned* seed, int with_csv_fault, fs_file_faults* f) {
  memset(f, 0, sizeof *f);
  f->csv_cam = -1;
  char path[2048];
  if (with_csv_fault) {
    f->csv_cam = (int)(fs_rand(seed) % 3);
    const fs_lines* l = f->csv_cam < 2 ? &d->cam[f->csv_cam] : &d->imu;
    f->csv_row = (int)(fs_rand(seed) % (unsigned)(l->count - 1));
  }
  for (int k = 0; k < 2; ++k) {
    snprintf(path, sizeof path, "%s/mav0/cam%d/data.csv", d->root, k);
    if (write_csv(path, &d->cam[k], f->csv_cam == k ? f->csv_row : -1) != 0) return -1;
  }
  snprintf(path, sizeof path, "%s/mav0/imu0/data.csv", d->root);
  if (write_csv(path, &d->imu, f->csv_cam == 2 ? f->csv_row : -1) != 0) return -1;
  if (with_csv_fault) return 0; /* the lap does not open: no image faults */
  /* Four bad images and a missing one, each in a different pair (names are the timestamps). */
  char chosen[5][64];
  int n = 0;
  while (n < 5) {
    int cam = n < 4 ? (int)(fs_rand(seed) & 1) : 1;
    char name[64];
    if (random_row(&d->cam[cam], seed, name, sizeof name) < 0) return -1;
    int dup = 0;
    for (int j = 0; j < n; ++j) dup |= strcmp(chosen[j], name) == 0;
    snprintf(path, sizeof path, "%s/cam%d/data/%s", d->src, cam, name);
    if (dup || access(path, F_OK) != 0) continue; /* the excerpt lists 4 images it lacks */
    snprintf(chosen[n], sizeof chosen[n], "%s", name);
    if (n < 4) {
      snprintf(f->bad_png[n], sizeof f->bad_png[n], "%s", name);
      f->bad_cam[n] = cam;
      if (write_bad_png(d, cam, name, n >= 2) != 0) return -1;
    } else {
      snprintf(f->missing, sizeof f->missing, "%s", name);
      snprintf(path, sizeof path, "%s/mav0/cam1/data/%s", d->root, name);
      if (unlink(path) != 0) return -1;
    }
    n++;
  }
  return 0;
}

int fs_lap_restore(fs_lap_dir* d, const fs_file_faults* f) { return relink(d, f); }
