// SPDX-License-Identifier: BSD-3-Clause
/* The fault-injection walk of test_fault_alloc (src/core/vf_fault.h): a scenario is run with the
 * k-th counted call failing, for k = 1, 2, ... until a run passes without a failure; each run's
 * statuses are gathered in a walk_run. */
#ifndef FAULT_WALK_H
#define FAULT_WALK_H

#include <stdio.h>
#include <string.h>
#include <viofront/viofront.h>

#include "core/vf_fault.h"
#include "vf_test.h"

typedef struct walk_run {
  vf_status first; /* the first failure of the run */
  char message[512];
  int later; /* failures after the first (the fault is one-shot: there must be none) */
} walk_run;

typedef struct walk_scenario {
  const char* name;
  void (*run)(walk_run* r);
  int unasked; /* 1: work done ahead (a prefetch thread) may fail where nobody asks for it */
} walk_scenario;

/* Records a call's status; 1 when it succeeded. */
static inline int walk_step(walk_run* r, vf_status s) {
  if (s == VF_OK) return 1;
  if (r->first == VF_OK) {
    r->first = s;
    snprintf(r->message, sizeof r->message, "%s", vf_last_error_message());
  } else {
    r->later++;
    fprintf(stderr, "  another failure after the injected one: %s: %s\n", vf_status_str(s),
            vf_last_error_message());
  }
  return 0;
}

/* A call whose status does not depend on the fault (e.g. predicting an id that may be gone). */
static inline void walk_tolerate(walk_run* r, vf_status s) {
  (void)r;
  (void)s;
}

static inline int walk_available(void) { return vf_fault_available(); }

/* The file:line of a site, from src/ or cuda/ on. */
static inline const char* walk_site_name(const vf_fault_site* site) {
  const char* p = strstr(site->name, "/src/");
  if (p == NULL) p = strstr(site->name, "/cuda/");
  return p != NULL ? p + 1 : site->name;
}

static inline int walk_status_allowed(vf_status s, int cuda) {
  return s == VF_ERR_NOMEM || (cuda && s == VF_ERR_CUDA);
}

/* Walks k over every counted call of `kinds` that the scenario makes. */
static inline void walk_scenario_run(const walk_scenario* sc, int kinds, int cuda) {
  unsigned long k = 1;
  int bad = 0;
  for (;; ++k) {
    walk_run r = {VF_OK, "", 0};
    vf_fault_arm(kinds, k);
    sc->run(&r);
    const vf_fault_site* fired = vf_fault_fired();
    vf_fault_disarm();
    if (fired == NULL) {
      if (r.first != VF_OK) {
        fprintf(stderr, "%s: fails without an injected fault: %s: %s\n", sc->name,
                vf_status_str(r.first), r.message);
        bad++;
      }
      break;
    }
    /* The prefetch thread may decode a pair that nobody asks for: its failure is not reported. */
    int silent_ok = r.first == VF_OK && sc->unasked;
    if ((!walk_status_allowed(r.first, cuda) || r.message[0] == '\0' || r.later != 0) &&
        !silent_ok) {
      fprintf(stderr, "%s: call %lu failed at %s: got %s (\"%s\"), %d later failures\n", sc->name,
              k, walk_site_name(fired), vf_status_str(r.first), r.message, r.later);
      bad++;
    }
  }
  CHECK(bad == 0);
  printf("%s: %lu calls failed in turn, %d wrong outcomes\n", sc->name, k - 1, bad);
}

/* Every site of `kinds` compiled into the library must have failed during the walk. */
static inline void walk_check_sites(int kinds) {
  int n = vf_fault_site_count(), counted = 0, missed = 0;
  for (int i = 0; i < n; ++i) {
    const vf_fault_site* s = vf_fault_site_at(i);
    if ((s->kind & kinds) == 0) continue;
    counted++;
    if (s->failed == 0) {
      fprintf(stderr, "site %s (kind %d) never failed: no scenario reaches it\n", walk_site_name(s),
              s->kind);
      missed++;
    }
  }
  CHECK(counted > 0);
  CHECK(missed == 0);
  printf("sites: %d of kinds %d compiled in, %d never failed\n", counted, kinds, missed);
}

#endif
