// SPDX-License-Identifier: BSD-3-Clause
/* YAML documents through libyaml's document API, read against schemas: tables of keys with a
 * type, a target field and a range. Every failure names the file, the line and the key
 * ("config/euroc.yaml:12: cameras[0].intrinsics: needs 4 numbers, got 3"); unknown keys are
 * warned about through the context log and skipped. */
#ifndef VF_YAML_H
#define VF_YAML_H

#include <stddef.h>
#include <yaml.h>

#include "core/vf_context_internal.h"
#include "viofront/vf_camera.h"
#include "viofront/vf_euroc.h"

/* Larger files are refused: configs and sensor.yaml files are a few KB. */
#define VF_YAML_MAX_BYTES (1 << 20)

typedef struct vf_yaml {
  yaml_document_t doc;
  int loaded;
  char name[512];        /* the file name used in messages */
  const vf_context* log; /* where unknown keys are warned about; may be NULL */
} vf_yaml;

/* Loads and parses (OpenCV's "%YAML:1.0" first line is accepted). On failure nothing needs
 * freeing; on success call vf_yaml_free. */
vf_status vf_yaml_load_file(vf_yaml* y, const char* path, const vf_context* log);
vf_status vf_yaml_load_text(vf_yaml* y, const char* text, size_t size, const char* name,
                            const vf_context* log);
void vf_yaml_free(vf_yaml* y);

/* The root node, or NULL for an empty document. */
yaml_node_t* vf_yaml_root(vf_yaml* y);
/* 1-based line of a node. */
int vf_yaml_line(const yaml_node_t* n);
/* The scalar's text, or NULL when the node is not a scalar. */
const char* vf_yaml_scalar(const yaml_node_t* n);
yaml_node_t* vf_yaml_node(vf_yaml* y, int index);
/* The value of `key` in mapping `map`, or NULL. */
yaml_node_t* vf_yaml_find(vf_yaml* y, yaml_node_t* map, const char* key);

typedef enum vf_yaml_type {
  VF_YAML_DOUBLE,  /* double, finite, in [min, max] */
  VF_YAML_FLOAT,   /* float, finite, in [min, max] */
  VF_YAML_INT,     /* int in [min, max] */
  VF_YAML_INT64,   /* int64_t in [min, max] */
  VF_YAML_BOOL,    /* int 0/1 from true/false/yes/no/on/off */
  VF_YAML_STRING,  /* char[count_max] */
  VF_YAML_DOUBLES, /* double[count_max], count_min..count_max numbers in [min, max] */
  VF_YAML_INTS,    /* int[count_max], count_min..count_max integers in [min, max] */
  VF_YAML_ENUM,    /* int: names[i] -> values[i] (or i when values is NULL) */
  VF_YAML_CUSTOM,  /* parse() reads the node */
  VF_YAML_IGNORED  /* known key whose value is not used (EuRoC's comment) */
} vf_yaml_type;

typedef struct vf_yaml_key {
  const char* name;
  vf_yaml_type type;
  size_t offset; /* of the field in the target struct */
  double min, max;
  int count_min, count_max;
  int required;
  const char* const* names; /* ENUM, NULL-terminated */
  const int* values;
  /* CUSTOM: reads `node` into the field; `where` is the full key ("cameras[0].T_BS"). */
  vf_status (*parse)(vf_yaml* y, yaml_node_t* node, const char* where, void* field);
  size_t count_offset; /* DOUBLES: int field receiving the count; 0 = none */
} vf_yaml_key;

/* Reads the mapping `map` into `target` by the table; `section` prefixes key names in messages
 * ("" at the root). Keys seen are ORed into *seen as bit i of keys[i] when seen is non-NULL. */
vf_status vf_yaml_read_map(vf_yaml* y, yaml_node_t* map, const char* section,
                           const vf_yaml_key* keys, int nkeys, void* target, unsigned* seen);

/* A boolean scalar (true/false and the words vf_yaml.c accepts) into *out. */
vf_status vf_yaml_bool(const vf_yaml* y, const yaml_node_t* n, const char* where, int* out);

/* A failure at node n: "<file>:<line>: <where>: <message>". */
vf_status vf_yaml_fail(const vf_yaml* y, const yaml_node_t* n, vf_status status, const char* where,
                       const char* fmt, ...) __attribute__((format(printf, 5, 6)));

/* Reads n numbers from a sequence node into out (exactly n, finite). */
vf_status vf_yaml_read_numbers(vf_yaml* y, yaml_node_t* node, const char* where, double* out,
                               int count_min, int count_max, int* count);

/* A row-major 4x4 as EuRoC writes T_BS ({rows: 4, cols: 4, data: [16]}), a list of 16 numbers,
 * or a list of 4 rows of 4 (Kalibr's); checked to be a rigid transform. A VF_YAML_CUSTOM parse
 * whose field is double[16]. */
vf_status vf_yaml_read_transform(vf_yaml* y, yaml_node_t* n, const char* where, void* field);

/* EuRoC sensor.yaml content of a mapping (src/io/vf_yaml_sensor.c), validated. */
vf_status vf_yaml_read_camera(vf_yaml* y, yaml_node_t* map, const char* section, vf_camera* out);
vf_status vf_yaml_read_imu(vf_yaml* y, yaml_node_t* map, const char* section, vf_imu_calib* out);

#endif
