/* SPDX-License-Identifier: Apache-2.0 */
/* Value conversion big-endian <-> native field layout (conv.c). Private to runtime/src. */
#ifndef P4DP_RT_CONV_H
#define P4DP_RT_CONV_H

#include <stdbool.h>
#include <stdint.h>

/** Convert @p be_len big-endian bytes to a native field of @p bitwidth bits stored in @p size
 *  bytes at @p out (fields up to 128 bits: little-endian; wider: big-endian, right-aligned).
 *  @return 0; -EINVAL (message "<what>: ...") if @p be is empty, longer than ceil(bitwidth/8)
 *  bytes, or has bits set above @p bitwidth. Pure apart from the error message; any thread. */
int rt_be_to_native(const char *what, uint32_t bitwidth, uint32_t size, const uint8_t *be, uint32_t be_len,
		    uint8_t *out);
/** Whether rt_be_to_native would accept @p be (not empty, at most ceil(bitwidth/8) bytes, no bit
 *  set above @p bitwidth). Pure; any thread. */
bool rt_be_fits(uint32_t bitwidth, const uint8_t *be, uint32_t be_len);
/** The inverse: write the native field @p in as ceil(bitwidth/8) big-endian bytes to @p be. */
void rt_native_to_be(uint32_t bitwidth, uint32_t size, const uint8_t *in, uint8_t *be);

#endif
