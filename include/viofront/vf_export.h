// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Symbol visibility: the library is built with hidden visibility and exports only VF_API. */
#ifndef VF_EXPORT_H
#define VF_EXPORT_H

#if defined(VF_BUILDING_LIBRARY) && defined(__GNUC__)
/** Marks a function the library exports (default visibility while building it). */
#define VF_API __attribute__((visibility("default")))
#else
#define VF_API
#endif

#endif
