// SPDX-License-Identifier: BSD-3-Clause
/* The context configuration an example program starts from, before its command line. */
#ifndef EXAMPLE_CONTEXT_H
#define EXAMPLE_CONTEXT_H

#include <viofront/viofront.h>

/* The config file's context section (backend, CUDA device, CPU threads, log level) over the
 * defaults; the defaults alone without a file (NULL) or when it does not load: the program reads
 * the file again for its stages once the context exists, and reports the error then, through the
 * context's log. */
vf_context_config example_context_config(const char* config_path);

#endif
