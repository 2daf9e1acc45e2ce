/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Value conversion between the control plane's big-endian byte strings and the data plane's native
 * field layout (ARCHITECTURE.md, "Value representation"). A leaf: it calls only err.c (the
 * message of a rejected value).
 */
#include <errno.h>
#include <string.h>

#include "conv.h"
#include "err.h"

int rt_be_to_native(const char *what, uint32_t bitwidth, uint32_t size, const uint8_t *be, uint32_t be_len,
		    uint8_t *out)
{
	uint32_t nbytes = (bitwidth + 7) / 8;
	if (be_len == 0 || be == NULL)
		return rt_errc(-EINVAL, "%s: empty value", what);
	if (be_len > nbytes)
		return rt_errc(-EINVAL, "%s: %u bytes given for a %u-bit value (at most %u bytes)", what, be_len,
			       bitwidth, nbytes);
	if (be_len == nbytes && bitwidth % 8 != 0 && (be[0] >> (bitwidth % 8)) != 0)
		return rt_errc(-EINVAL, "%s: value does not fit in %u bits", what, bitwidth);
	memset(out, 0, size);
	if (bitwidth <= 128) {
		for (uint32_t i = 0; i < be_len; i++)
			out[i] = be[be_len - 1 - i];
	} else {
		memcpy(out + size - be_len, be, be_len);
	}
	return 0;
}

bool rt_be_fits(uint32_t bitwidth, const uint8_t *be, uint32_t be_len)
{
	uint32_t nbytes = (bitwidth + 7) / 8;
	if (be_len == 0 || be == NULL || be_len > nbytes)
		return false;
	return !(be_len == nbytes && bitwidth % 8 != 0 && (be[0] >> (bitwidth % 8)) != 0);
}

void rt_native_to_be(uint32_t bitwidth, uint32_t size, const uint8_t *in, uint8_t *be)
{
	uint32_t nbytes = (bitwidth + 7) / 8;
	if (bitwidth <= 128) {
		for (uint32_t i = 0; i < nbytes; i++)
			be[nbytes - 1 - i] = in[i];
	} else {
		memcpy(be, in + size - nbytes, nbytes);
	}
}
