// SPDX-License-Identifier: BSD-3-Clause
/* Fault injection's counter and the list of sites (see vf_fault.h). The linker gathers every
 * site record into the section "vf_fault_sites" and names its ends __start_/__stop_. */
#include "core/vf_fault.h"

#include <stdatomic.h>

static atomic_int vf_fault_kinds;
static atomic_ulong vf_fault_target;
static atomic_ulong vf_fault_count;
static _Atomic(vf_fault_site*) vf_fault_site_fired;

#ifdef VF_FAULT_INJECTION
extern vf_fault_site __start_vf_fault_sites[] __attribute__((weak, visibility("hidden")));
extern vf_fault_site __stop_vf_fault_sites[] __attribute__((weak, visibility("hidden")));
#endif

int vf_fault_available(void) {
#ifdef VF_FAULT_INJECTION
  return 1;
#else
  return 0;
#endif
}

void vf_fault_arm(int kinds, unsigned long k) {
  atomic_store(&vf_fault_kinds, 0);
  atomic_store(&vf_fault_count, 0);
  atomic_store(&vf_fault_target, k);
  atomic_store(&vf_fault_site_fired, NULL);
  atomic_store(&vf_fault_kinds, kinds);
}

void vf_fault_disarm(void) { atomic_store(&vf_fault_kinds, 0); }

unsigned long vf_fault_calls(void) { return atomic_load(&vf_fault_count); }

const vf_fault_site* vf_fault_fired(void) { return atomic_load(&vf_fault_site_fired); }

int vf_fault_site_count(void) {
#ifdef VF_FAULT_INJECTION
  if (__start_vf_fault_sites == NULL) return 0;
  return (int)(__stop_vf_fault_sites - __start_vf_fault_sites);
#else
  return 0;
#endif
}

const vf_fault_site* vf_fault_site_at(int i) {
#ifdef VF_FAULT_INJECTION
  if (i < 0 || i >= vf_fault_site_count()) return NULL;
  return &__start_vf_fault_sites[i];
#else
  (void)i;
  return NULL;
#endif
}

int vf_fault_hit(vf_fault_site* site) {
  if ((atomic_load(&vf_fault_kinds) & site->kind) == 0) return 0;
  unsigned long n = atomic_fetch_add(&vf_fault_count, 1) + 1;
  __atomic_fetch_add(&site->calls, 1, __ATOMIC_RELAXED);
  if (n != atomic_load(&vf_fault_target)) return 0;
  __atomic_fetch_add(&site->failed, 1, __ATOMIC_RELAXED);
  atomic_store(&vf_fault_site_fired, site);
  return 1;
}
