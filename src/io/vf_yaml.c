// SPDX-License-Identifier: BSD-3-Clause
/* YAML loading through libyaml's document API, and schema-driven reading of mappings with
 * validation of every key (type, range, count, duplicates, unknown keys). */
#include "io/vf_yaml.h"
#include "core/vf_fault.h"
#include "vf_yaml.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

vf_status vf_yaml_fail(const vf_yaml* y, const yaml_node_t* n, vf_status status, const char* where,
                       const char* fmt, ...) {
  char msg[384];
  va_list args;
  va_start(args, fmt);
  vsnprintf(msg, sizeof msg, fmt, args);
  va_end(args);
  return vf_fail(NULL, status, "%s:%d: %s: %s", y->name, n != NULL ? vf_yaml_line(n) : 1,
                 where[0] != '\0' ? where : "(document)", msg);
}

vf_status vf_yaml_load_text(vf_yaml* y, const char* text, size_t size, const char* name,
                            const vf_context* log) {
  memset(y, 0, sizeof *y);
  snprintf(y->name, sizeof y->name, "%s", name != NULL ? name : "(memory)");
  y->log = log;
  if (text == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: text is NULL", y->name);
  if (size > VF_YAML_MAX_BYTES) {
    return vf_fail(NULL, VF_ERR_FORMAT, "%s: %zu bytes, more than the %d a YAML file may have",
                   y->name, size, VF_YAML_MAX_BYTES);
  }
  /* OpenCV writes "%YAML:1.0", which libyaml rejects; as a comment it keeps the line count. */
  char* copy = vf_malloc(size + 1);
  if (copy == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "%s: out of memory", y->name);
  memcpy(copy, text, size);
  copy[size] = '\0';
  if (size >= 6 && memcmp(copy, "%YAML:", 6) == 0) copy[0] = '#';
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) {
    free(copy);
    return vf_fail(NULL, VF_ERR_NOMEM, "%s: libyaml init", y->name);
  }
  yaml_parser_set_input_string(&parser, (const unsigned char*)copy, size);
  vf_status s = VF_OK;
  if (!yaml_parser_load(&parser, &y->doc)) {
    s = vf_fail(NULL, VF_ERR_FORMAT, "%s:%lu: YAML syntax error: %s%s%s", y->name,
                (unsigned long)parser.problem_mark.line + 1,
                parser.problem != NULL ? parser.problem : "unknown",
                parser.context != NULL ? ", " : "", parser.context != NULL ? parser.context : "");
  } else {
    y->loaded = 1;
  }
  yaml_parser_delete(&parser);
  free(copy);
  return s;
}

vf_status vf_yaml_load_file(vf_yaml* y, const char* path, const vf_context* log) {
  memset(y, 0, sizeof *y);
  if (path == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "YAML path is NULL");
  FILE* f = fopen(path, "rb");
  if (f == NULL) return vf_fail(NULL, VF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  char* buf = vf_malloc(VF_YAML_MAX_BYTES + 1);
  if (buf == NULL) {
    fclose(f);
    return vf_fail(NULL, VF_ERR_NOMEM, "%s: out of memory", path);
  }
  size_t n = fread(buf, 1, VF_YAML_MAX_BYTES + 1, f);
  int bad = ferror(f);
  fclose(f);
  vf_status s = bad ? vf_fail(NULL, VF_ERR_IO, "%s: read error", path)
                    : vf_yaml_load_text(y, buf, n, path, log);
  free(buf);
  return s;
}

void vf_yaml_free(vf_yaml* y) {
  if (y != NULL && y->loaded) yaml_document_delete(&y->doc);
  if (y != NULL) y->loaded = 0;
}

yaml_node_t* vf_yaml_root(vf_yaml* y) { return yaml_document_get_root_node(&y->doc); }

int vf_yaml_line(const yaml_node_t* n) { return (int)n->start_mark.line + 1; }

yaml_node_t* vf_yaml_find(vf_yaml* y, yaml_node_t* map, const char* key) {
  if (map == NULL || map->type != YAML_MAPPING_NODE) return NULL;
  for (yaml_node_pair_t* p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; ++p) {
    const char* name = vf_yaml_scalar(vf_yaml_node(y, p->key));
    if (name != NULL && strcmp(name, key) == 0) return vf_yaml_node(y, p->value);
  }
  return NULL;
}

yaml_node_t* vf_yaml_node(vf_yaml* y, int index) { return yaml_document_get_node(&y->doc, index); }

const char* vf_yaml_scalar(const yaml_node_t* n) {
  return n != NULL && n->type == YAML_SCALAR_NODE ? (const char*)n->data.scalar.value : NULL;
}

static vf_status vf_yaml_double(const vf_yaml* y, const yaml_node_t* n, const char* where,
                                double* out) {
  const char* t = vf_yaml_scalar(n);
  if (t == NULL) return vf_yaml_fail(y, n, VF_ERR_FORMAT, where, "expected a number");
  char* end = NULL;
  errno = 0;
  double v = strtod(t, &end);
  if (t[0] == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v)) {
    return vf_yaml_fail(y, n, VF_ERR_FORMAT, where, "'%.40s' is not a finite number", t);
  }
  *out = v;
  return VF_OK;
}

static vf_status vf_yaml_int64(const vf_yaml* y, const yaml_node_t* n, const char* where,
                               int64_t* out) {
  const char* t = vf_yaml_scalar(n);
  if (t == NULL) return vf_yaml_fail(y, n, VF_ERR_FORMAT, where, "expected an integer");
  char* end = NULL;
  errno = 0;
  long long v = strtoll(t, &end, 10);
  if (t[0] == '\0' || *end != '\0' || errno == ERANGE) {
    return vf_yaml_fail(y, n, VF_ERR_FORMAT, where, "'%.40s' is not an integer", t);
  }
  *out = (int64_t)v;
  return VF_OK;
}

vf_status vf_yaml_read_numbers(vf_yaml* y, yaml_node_t* n, const char* where, double* out,
                               int count_min, int count_max, int* count) {
  if (n->type != YAML_SEQUENCE_NODE) {
    return vf_yaml_fail(y, n, VF_ERR_FORMAT, where, "expected a list of numbers");
  }
  int c = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
  if (c < count_min || c > count_max) {
    if (count_min == count_max) {
      return vf_yaml_fail(y, n, VF_ERR_FORMAT, where, "needs %d numbers, got %d", count_min, c);
    }
    return vf_yaml_fail(y, n, VF_ERR_FORMAT, where, "needs %d to %d numbers, got %d", count_min,
                        count_max, c);
  }
  for (int i = 0; i < c; ++i) {
    yaml_node_t* item = vf_yaml_node(y, n->data.sequence.items.start[i]);
    char w[160];
    snprintf(w, sizeof w, "%s[%d]", where, i);
    vf_status s = vf_yaml_double(y, item, w, &out[i]);
    if (s != VF_OK) return s;
  }
  if (count != NULL) *count = c;
  return VF_OK;
}

static vf_status vf_yaml_range(const vf_yaml* y, const yaml_node_t* n, const char* where, double v,
                               const vf_yaml_key* k) {
  if (v < k->min || v > k->max) {
    return vf_yaml_fail(y, n, VF_ERR_FORMAT, where, "%g is outside %g..%g", v, k->min, k->max);
  }
  return VF_OK;
}

static vf_status vf_yaml_enum(const vf_yaml* y, const yaml_node_t* n, const char* where,
                              const vf_yaml_key* k, int* out) {
  const char* t = vf_yaml_scalar(n);
  for (int i = 0; t != NULL && k->names[i] != NULL; ++i) {
    if (strcasecmp(t, k->names[i]) == 0) {
      *out = k->values != NULL ? k->values[i] : i;
      return VF_OK;
    }
  }
  char list[256] = "";
  for (int i = 0; k->names[i] != NULL; ++i) {
    size_t used = strlen(list);
    snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", k->names[i]);
  }
  return vf_yaml_fail(y, n, VF_ERR_FORMAT, where, "'%.40s' is not one of: %s",
                      t != NULL ? t : "(not a scalar)", list);
}

vf_status vf_yaml_bool(const vf_yaml* y, const yaml_node_t* n, const char* where, int* out) {
  static const char* const yes[] = {"true", "yes", "on", "1"};
  static const char* const no[] = {"false", "no", "off", "0"};
  const char* t = vf_yaml_scalar(n);
  for (int i = 0; t != NULL && i < 4; ++i) {
    if (strcasecmp(t, yes[i]) == 0 || strcasecmp(t, no[i]) == 0) {
      *out = strcasecmp(t, yes[i]) == 0;
      return VF_OK;
    }
  }
  return vf_yaml_fail(y, n, VF_ERR_FORMAT, where, "expected true or false");
}

/* Reads one value of key k into target. */
static vf_status vf_yaml_read_value(vf_yaml* y, yaml_node_t* v, const char* where,
                                    const vf_yaml_key* k, void* target) {
  char* field = (char*)target + k->offset;
  double d = 0;
  int64_t i = 0;
  vf_status s = VF_OK;
  switch (k->type) {
    case VF_YAML_DOUBLE:
      s = vf_yaml_double(y, v, where, &d);
      if (s == VF_OK) s = vf_yaml_range(y, v, where, d, k);
      if (s == VF_OK) memcpy(field, &d, sizeof d);
      return s;
    case VF_YAML_FLOAT: {
      s = vf_yaml_double(y, v, where, &d);
      if (s == VF_OK) s = vf_yaml_range(y, v, where, d, k);
      if (s == VF_OK) {
        float f = (float)d; /* only in range: a double past FLT_MAX has no float */
        memcpy(field, &f, sizeof f);
      }
      return s;
    }
    case VF_YAML_INT:
    case VF_YAML_INT64:
      s = vf_yaml_int64(y, v, where, &i);
      if (s == VF_OK) s = vf_yaml_range(y, v, where, (double)i, k);
      if (s != VF_OK) return s;
      if (k->type == VF_YAML_INT) {
        int iv = (int)i;
        memcpy(field, &iv, sizeof iv);
      } else {
        memcpy(field, &i, sizeof i);
      }
      return VF_OK;
    case VF_YAML_BOOL: return vf_yaml_bool(y, v, where, (int*)(void*)field);
    case VF_YAML_ENUM: return vf_yaml_enum(y, v, where, k, (int*)(void*)field);
    case VF_YAML_STRING: {
      const char* t = vf_yaml_scalar(v);
      if (t == NULL) return vf_yaml_fail(y, v, VF_ERR_FORMAT, where, "expected a string");
      if (strlen(t) >= (size_t)k->count_max) {
        return vf_yaml_fail(y, v, VF_ERR_FORMAT, where, "longer than %d characters",
                            k->count_max - 1);
      }
      strcpy(field, t);
      return VF_OK;
    }
    case VF_YAML_DOUBLES: {
      double buf[64];
      int count = 0;
      if (k->count_max > 64)
        return vf_yaml_fail(y, v, VF_ERR_INVALID_ARG, where, "schema too wide");
      s = vf_yaml_read_numbers(y, v, where, buf, k->count_min, k->count_max, &count);
      for (int j = 0; s == VF_OK && j < count; ++j) s = vf_yaml_range(y, v, where, buf[j], k);
      if (s != VF_OK) return s;
      memset(field, 0, sizeof(double) * (size_t)k->count_max);
      memcpy(field, buf, sizeof(double) * (size_t)count);
      if (k->count_offset != 0) memcpy((char*)target + k->count_offset, &count, sizeof count);
      return VF_OK;
    }
    case VF_YAML_INTS: {
      double buf[64];
      int count = 0, ints[64];
      if (k->count_max > 64)
        return vf_yaml_fail(y, v, VF_ERR_INVALID_ARG, where, "schema too wide");
      s = vf_yaml_read_numbers(y, v, where, buf, k->count_min, k->count_max, &count);
      for (int j = 0; s == VF_OK && j < count; ++j) {
        s = vf_yaml_range(y, v, where, buf[j], k);
        /* Converted only once known to be a whole number in int's range (a cast of anything
         * else is undefined: the fuzzer found a 60-digit entry). */
        if (s == VF_OK &&
            !(buf[j] >= (double)INT_MIN && buf[j] <= (double)INT_MAX && buf[j] == floor(buf[j])))
          s = vf_yaml_fail(y, v, VF_ERR_FORMAT, where, "expected whole numbers");
        if (s == VF_OK) ints[j] = (int)buf[j];
      }
      if (s != VF_OK) return s;
      memcpy(field, ints, sizeof(int) * (size_t)count);
      if (k->count_offset != 0) memcpy((char*)target + k->count_offset, &count, sizeof count);
      return VF_OK;
    }
    case VF_YAML_CUSTOM: return k->parse(y, v, where, field);
    case VF_YAML_IGNORED: return VF_OK;
  }
  return vf_yaml_fail(y, v, VF_ERR_INVALID_ARG, where, "schema has an unknown type");
}

vf_status vf_yaml_read_map(vf_yaml* y, yaml_node_t* map, const char* section,
                           const vf_yaml_key* keys, int nkeys, void* target, unsigned* seen) {
  const char* sec = section != NULL ? section : "";
  if (map == NULL || map->type != YAML_MAPPING_NODE) {
    return vf_yaml_fail(y, map, VF_ERR_FORMAT, sec, "expected a mapping of keys");
  }
  unsigned mask = 0;
  for (yaml_node_pair_t* p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; ++p) {
    yaml_node_t* kn = vf_yaml_node(y, p->key);
    yaml_node_t* vn = vf_yaml_node(y, p->value);
    const char* name = vf_yaml_scalar(kn);
    if (name == NULL) return vf_yaml_fail(y, kn, VF_ERR_FORMAT, sec, "a key is not a string");
    char where[256];
    snprintf(where, sizeof where, "%s%s%s", sec, sec[0] ? "." : "", name);
    int found = -1;
    for (int i = 0; i < nkeys && found < 0; ++i) found = strcmp(keys[i].name, name) == 0 ? i : -1;
    if (found < 0) {
      vf_log(y->log, VF_LOG_WARN, "%s:%d: unknown key '%s' ignored", y->name, vf_yaml_line(kn),
             where);
      continue;
    }
    if (mask & (1u << found)) {
      return vf_yaml_fail(y, kn, VF_ERR_FORMAT, where, "key appears twice");
    }
    mask |= 1u << found;
    const char* t = vf_yaml_scalar(vn);
    if (keys[found].type != VF_YAML_IGNORED && t != NULL && t[0] == '\0' &&
        vn->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
      return vf_yaml_fail(y, vn, VF_ERR_FORMAT, where, "has no value");
    }
    vf_status s = vf_yaml_read_value(y, vn, where, &keys[found], target);
    if (s != VF_OK) return s;
  }
  for (int i = 0; i < nkeys; ++i) {
    if (keys[i].required && !(mask & (1u << i))) {
      char where[256];
      snprintf(where, sizeof where, "%s%s%s", sec, sec[0] ? "." : "", keys[i].name);
      return vf_yaml_fail(y, map, VF_ERR_FORMAT, where, "missing key");
    }
  }
  if (seen != NULL) *seen |= mask;
  return VF_OK;
}
