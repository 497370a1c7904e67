// SPDX-License-Identifier: BSD-3-Clause
/* The example programs' log callback: the library never prints, so each program installs this
 * one to show the library's warnings (unknown config keys, missing images) on stderr. */
#ifndef EXAMPLE_LOG_H
#define EXAMPLE_LOG_H

#include <viofront/viofront.h>

/* Sets cc's callback to print warnings and errors as "<program>: warning: <message>" on stderr;
 * quiet != 0 leaves the context silent (--quiet). `program` must outlive the context. */
void example_log_install(vf_context_config* cc, const char* program, int quiet);

#endif
