/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime tests' input files: a classic pcap file (microsecond timestamps, Ethernet link
 * type) of 64-byte packets whose bytes the test's own function fills. */
#ifndef P4DP_TEST_PCAP_WRITE_H
#define P4DP_TEST_PCAP_WRITE_H

#include <stdint.h>
#include <stdio.h>

/** Fills packet @p i (64 bytes, zeroed before the call). */
typedef void (*test_pkt_fill_fn)(uint8_t *pkt, uint32_t i);

static void test_pcap_put32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }

/** Writes @p n packets of 64 bytes, each filled by @p fill, to @p path; packet i has timestamp
 * 1 s + i µs. Returns 0, or -1 when the file cannot be written. */
static int test_pcap_write(const char *path, uint32_t n, test_pkt_fill_fn fill)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	test_pcap_put32(f, 0xa1b2c3d4u);
	uint16_t ver[2] = { 2, 4 };
	fwrite(ver, 2, 2, f);
	test_pcap_put32(f, 0), test_pcap_put32(f, 0), test_pcap_put32(f, 65535), test_pcap_put32(f, 1);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t pkt[64] = { 0 };
		fill(pkt, i);
		test_pcap_put32(f, 1), test_pcap_put32(f, i), test_pcap_put32(f, 64), test_pcap_put32(f, 64);
		fwrite(pkt, 1, 64, f);
	}
	return fclose(f) == 0 ? 0 : -1;
}

#endif
