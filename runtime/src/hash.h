/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CRC32-C hashing of byte strings of any alignment (leaf module: includes only DPDK's CRC
 * primitives). Private to runtime/src.
 *
 * DPDK's inline rte_hash_crc() dereferences its buffer as uint64_t/uint32_t/uint16_t, which is
 * undefined behaviour (and a fault on CPUs without unaligned loads) unless the buffer is 8-byte
 * aligned. Table keys are not: rte_hash hands its hash function the key a caller passed (a
 * field of a packet's state, a control-plane buffer, a key of rte_hash's own key store), and the
 * flow-dispatch key is a window of the received frame. rt_hash_crc() computes exactly the same
 * value, in the same 8/4/2/1-byte steps, but loads each step with memcpy, which the compiler
 * turns into the same single load on x86 and into a safe sequence where unaligned loads fault.
 */
#ifndef P4DP_RT_HASH_H
#define P4DP_RT_HASH_H

#include <stdint.h>
#include <string.h>

#include <rte_hash_crc.h>

/** CRC32-C of @p len bytes at @p data (any alignment) seeded with @p init: equal to
 *  rte_hash_crc(data, len, init). Pure; any thread. */
static inline uint32_t rt_hash_crc(const void *data, uint32_t len, uint32_t init)
{
	const uint8_t *p = data;
	for (uint32_t i = 0; i < len / 8; i++, p += 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		init = rte_hash_crc_8byte(v, init);
	}
	if (len & 4) {
		uint32_t v;
		memcpy(&v, p, 4);
		init = rte_hash_crc_4byte(v, init);
		p += 4;
	}
	if (len & 2) {
		uint16_t v;
		memcpy(&v, p, 2);
		init = rte_hash_crc_2byte(v, init);
		p += 2;
	}
	if (len & 1)
		init = rte_hash_crc_1byte(*p, init);
	return init;
}

#endif
