// SPDX-License-Identifier: BSD-3-Clause
/* vf_replay --rig: every camera's image list of an EuRoC-layout rig sequence (mav0/camK/data.csv,
 * "#timestamp [ns],filename" then one row an image) merged into sets by timestamp. The EuRoC
 * reader pairs cam0 with cam1 only; a rig's images of one instant share their timestamp (as
 * vf_synth --rig writes them), so a set is one timestamp and holds each camera's image at it,
 * or none. The images are decoded ahead by replay_ahead.c, one file kind a camera. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay_rig.h"

typedef struct rig_row {
  int64_t t_ns;
  char* name;
} rig_row;

/* Whether `path` is a folder (dir 1) or a plain file (dir 0). */
static int exists_as(const char* path, int dir) {
  struct stat sb;
  return stat(path, &sb) == 0 && (dir ? S_ISDIR(sb.st_mode) : S_ISREG(sb.st_mode));
}

static void free_rows(rig_row* rows, int n) {
  for (int i = 0; i < n; ++i) free(rows[i].name);
  free(rows);
}

/* One data row "t,name" into *row; -1 (with the reason on stderr) when it is no such row. */
static int parse_row(const char* path, int line_no, char* line, int64_t last, int have_last,
                     rig_row* row) {
  char* end = NULL;
  long long t = strtoll(line, &end, 10);
  if (end == line || *end != ',' || t < 0) {
    fprintf(stderr, "vf_replay: %s:%d: expected \"timestamp,filename\"\n", path, line_no);
    return -1;
  }
  if (have_last && t <= last) {
    fprintf(stderr, "vf_replay: %s:%d: timestamp %lld does not follow %" PRId64 "\n", path, line_no,
            t, last);
    return -1;
  }
  char* name = end + 1;
  name[strcspn(name, "\r\n")] = '\0';
  if (name[0] == '\0' || strchr(name, '/') != NULL) {
    fprintf(stderr, "vf_replay: %s:%d: '%s' is not a plain file name\n", path, line_no, name);
    return -1;
  }
  row->t_ns = t;
  row->name = strdup(name);
  return row->name != NULL ? 0 : -1;
}

/* Camera k's rows whose files exist (the others counted in s->missing). */
static int read_list(replay_rig_sets* s, int k, rig_row** out, int* count) {
  char path[1100], line[1024];
  snprintf(path, sizeof path, "%s/cam%d/data.csv", s->root, k);
  FILE* f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "vf_replay: cannot read %s (the rig has camera %d)\n", path, k);
    return -1;
  }
  rig_row* rows = NULL;
  int n = 0, cap = 0, line_no = 0, rc = 0;
  while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
    ++line_no;
    if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0') continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 256;
      rig_row* grown = realloc(rows, sizeof *rows * (size_t)cap);
      if (grown == NULL) {
        rc = -1;
        break;
      }
      rows = grown;
    }
    rc = parse_row(path, line_no, line, n > 0 ? rows[n - 1].t_ns : 0, n > 0, &rows[n]);
    if (rc != 0) break;
    s->rows[k]++;
    char file[2400];
    snprintf(file, sizeof file, "%s/cam%d/data/%s", s->root, k, rows[n].name);
    if (exists_as(file, 0)) {
      ++n;
    } else {
      free(rows[n].name);
      s->missing[k]++;
    }
  }
  fclose(f);
  if (rc != 0) {
    free_rows(rows, n);
    return -1;
  }
  *out = rows;
  *count = n;
  return 0;
}

static int cmp_time(const void* a, const void* b) {
  const int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x > y) - (x < y);
}

/* The sets: every timestamp any camera has, once; each camera's names placed at theirs. */
static int make_sets(replay_rig_sets* s, rig_row* const* rows, const int* count) {
  long all = 0;
  for (int k = 0; k < s->cameras; ++k) all += count[k];
  s->t_ns = malloc(sizeof *s->t_ns * (size_t)(all > 0 ? all : 1));
  if (s->t_ns == NULL) return -1;
  for (int k = 0, j = 0; k < s->cameras; ++k)
    for (int i = 0; i < count[k]; ++i) s->t_ns[j++] = rows[k][i].t_ns;
  qsort(s->t_ns, (size_t)all, sizeof *s->t_ns, cmp_time);
  for (long i = 0; i < all; ++i)
    if (s->count == 0 || s->t_ns[s->count - 1] != s->t_ns[i]) s->t_ns[s->count++] = s->t_ns[i];
  s->name = calloc((size_t)(s->count > 0 ? s->count : 1) * (size_t)s->cameras, sizeof *s->name);
  if (s->name == NULL) return -1;
  for (int k = 0; k < s->cameras; ++k) {
    /* Both lists increase: one walk places every row (the names move into the sets). */
    for (int i = 0, set = 0; i < count[k]; ++i) {
      while (s->t_ns[set] < rows[k][i].t_ns) ++set;
      s->name[(size_t)set * (size_t)s->cameras + (size_t)k] = rows[k][i].name;
      rows[k][i].name = NULL;
    }
  }
  return 0;
}

static int decode_image(const void* user, int set, int64_t t_ns, int k, vf_image* image) {
  const replay_rig_sets* s = user;
  const char* name = s->name[(size_t)set * (size_t)s->cameras + (size_t)k];
  (void)t_ns;
  if (name == NULL) return 0;
  /* A ring entry's first image: its buffer page-locked at the camera's size (then reused), or,
   * where that memory cannot be had (the failed call leaves the image cleared), an ordinary one
   * from the decoder. */
  if (s->pinned && image->data == NULL)
    (void)vf_image_alloc_pinned(image, s->width[k], s->height[k], VF_PIXEL_U8);
  char path[2400];
  snprintf(path, sizeof path, "%s/cam%d/data/%s", s->root, k, name);
  return vf_png_read_gray_into(path, 8, image) == VF_OK && image->width == s->width[k] &&
         image->height == s->height[k];
}

int replay_rig_sets_open(const char* sequence, const vf_rig* rig, int threads, int depth,
                         int pinned, replay_rig_sets* s) {
  memset(s, 0, sizeof *s);
  s->pinned = pinned;
  snprintf(s->root, sizeof s->root, "%s/mav0", sequence);
  if (!exists_as(s->root, 1)) snprintf(s->root, sizeof s->root, "%s", sequence);
  s->cameras = rig->camera_count;
  for (int k = 0; k < s->cameras; ++k) {
    s->width[k] = rig->cameras[k].width;
    s->height[k] = rig->cameras[k].height;
  }
  rig_row* rows[VF_RIG_MAX_CAMERAS] = {NULL};
  int count[VF_RIG_MAX_CAMERAS] = {0}, rc = 0;
  for (int k = 0; k < s->cameras && rc == 0; ++k) rc = read_list(s, k, &rows[k], &count[k]);
  if (rc == 0 && make_sets(s, rows, count) != 0) {
    fprintf(stderr, "vf_replay: out of memory for the image sets\n");
    rc = -1;
  }
  for (int k = 0; k < s->cameras; ++k) free_rows(rows[k], count[k]);
  if (rc == 0 && s->count == 0) {
    fprintf(stderr, "vf_replay: %s: no camera of the rig lists an image\n", s->root);
    rc = -1;
  }
  if (rc == 0 && replay_ahead_open(s->t_ns, s->count, s->cameras, decode_image, s, threads, depth,
                                   &s->images) != 0) {
    fprintf(stderr, "vf_replay: cannot start the image readers\n");
    rc = -1;
  }
  if (rc != 0) replay_rig_sets_close(s);
  return rc;
}

const vf_image* replay_rig_sets_image(replay_rig_sets* s, int set, int k) {
  const char* name = s->name[(size_t)set * (size_t)s->cameras + (size_t)k];
  if (name == NULL) return NULL;
  const vf_image* image = replay_ahead_get(s->images, s->t_ns[set], k);
  if (image == NULL) {
    fprintf(stderr, "\nvf_replay: cannot read %s/cam%d/data/%s as %dx%d 8-bit grey (skipped)\n",
            s->root, k, name, s->width[k], s->height[k]);
  }
  return image;
}

void replay_rig_sets_close(replay_rig_sets* s) {
  replay_ahead_close(s->images);
  for (size_t i = 0; s->name != NULL && i < (size_t)s->count * (size_t)s->cameras; ++i)
    free(s->name[i]);
  free(s->name);
  free(s->t_ns);
  memset(s, 0, sizeof *s);
}
