/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime tests' assertion: counts passes and failures (the test prints them and exits
 * non-zero on any failure) and reports a failed check with the runtime's last error. */
#ifndef P4DP_TEST_CHECK_H
#define P4DP_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

#include "p4dp/rt.h"

static unsigned n_pass, n_fail;

#define CHECK(c)                                                                                         \
	do {                                                                                             \
		if (c) {                                                                                 \
			n_pass++;                                                                        \
		} else {                                                                                 \
			n_fail++;                                                                        \
			fprintf(stderr, "%s:%d: FAILED: %s (last error: %s)\n", __FILE__, __LINE__, #c,     \
				p4dp_runtime_error_get(NULL));                                          \
		}                                                                                        \
	} while (0)

/** CHECK that @p expr returns @p code and the runtime's last error contains @p substr. */
#define CHECK_ERR(expr, code, substr)                                                                    \
	do {                                                                                             \
		int rc_ = (expr);                                                                        \
		CHECK(rc_ == (code));                                                                    \
		CHECK(strstr(p4dp_runtime_error_get(NULL), (substr)) != NULL);                          \
	} while (0)

#endif
