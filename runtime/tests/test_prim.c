/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Known-answer tests of p4dp/prim.h (the inline primitives of generated code).
 * Build: gcc -Wall -Wextra -Werror -O2 -Iruntime/include runtime/tests/test_prim.c
 * Exit status 0 = all passed; every failure is printed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "p4dp/prim.h"

static int failures;

#define CHECK_EQ(a, b)                                                                              \
	do {                                                                                        \
		unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b);      \
		if (_a != _b) {                                                                     \
			fprintf(stderr, "%s:%d: %s == 0x%llx, expected 0x%llx\n", __FILE__, __LINE__, \
				#a, _a, _b);                                                        \
			failures++;                                                                 \
		}                                                                                   \
	} while (0)

static const uint8_t check_str[] = "123456789";

static void test_crc(void)
{
	CHECK_EQ(p4dp_crc16(check_str, 9), 0xBB3D);
	CHECK_EQ(p4dp_crc32(check_str, 9), 0xCBF43926u);
	CHECK_EQ(p4dp_crc(&p4dp_crc16_ccitt, check_str, 9), 0x29B1);
	/* CRC-16/XMODEM: poly 0x1021, init 0, no reflection */
	struct p4dp_crc_params xmodem = { 0x1021u, 0, 0, 16, 0, 0 };
	CHECK_EQ(p4dp_crc(&xmodem, check_str, 9), 0x31C3);
	/* CRC-32C (Castagnoli) */
	struct p4dp_crc_params c32c = { 0x1EDC6F41u, 0xFFFFFFFFu, 0xFFFFFFFFu, 32, 1, 1 };
	CHECK_EQ(p4dp_crc(&c32c, check_str, 9), 0xE3069283u);
	/* piecewise update equals one-shot */
	uint32_t r = p4dp_crc_begin(&p4dp_crc32_std);
	r = p4dp_crc_update(&p4dp_crc32_std, r, check_str, 4);
	r = p4dp_crc_update(&p4dp_crc32_std, r, check_str + 4, 5);
	CHECK_EQ(p4dp_crc_finish(&p4dp_crc32_std, r), 0xCBF43926u);
	/* empty input */
	CHECK_EQ(p4dp_crc32(check_str, 0), 0);
	CHECK_EQ(p4dp_crc16(check_str, 0), 0);
}

static void test_csum(void)
{
	/* RFC 1071 section 3 example: sum 0xddf2 -> checksum 0x220d */
	const uint8_t rfc[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	CHECK_EQ(p4dp_csum16(rfc, sizeof rfc), 0x220d);
	/* An IPv4 header with its checksum field zeroed -> 0xb861 */
	const uint8_t ip[] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
			       0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };
	CHECK_EQ(p4dp_csum16(ip, sizeof ip), 0xb861);
	/* with the checksum filled in, the checksum over the header is 0 */
	uint8_t ip2[sizeof ip];
	memcpy(ip2, ip, sizeof ip);
	ip2[10] = 0xb8;
	ip2[11] = 0x61;
	CHECK_EQ(p4dp_csum16(ip2, sizeof ip2), 0);
	/* odd length: the last byte is the high byte of a zero-padded word */
	const uint8_t odd[] = { 0x12, 0x34, 0x56 };
	CHECK_EQ(p4dp_csum16(odd, 3), (uint16_t)~(0x1234 + 0x5600));
	/* pieces with an odd split give the same result */
	uint64_t s = p4dp_csum16_add(0, ip, 7, 0);
	s = p4dp_csum16_add(s, ip + 7, sizeof ip - 7, 7);
	CHECK_EQ(p4dp_csum16_finish(s), 0xb861);
	/* all-zero input -> 0xffff */
	const uint8_t z[4] = { 0 };
	CHECK_EQ(p4dp_csum16(z, 4), 0xffff);
}

static void test_xor_identity(void)
{
	const uint8_t d[] = { 0x12, 0x34, 0xab, 0xcd, 0xff };
	CHECK_EQ(p4dp_xor16(d, 4), 0x1234 ^ 0xabcd);
	CHECK_EQ(p4dp_xor16(d, 5), 0x1234 ^ 0xabcd ^ 0xff00);
	uint16_t x = p4dp_xor16_add(0, d, 3, 0);
	CHECK_EQ(p4dp_xor16_add(x, d + 3, 2, 3), 0x1234 ^ 0xabcd ^ 0xff00);
	CHECK_EQ(p4dp_identity64(d, 5), 0x1234abcdffull);
	const uint8_t l[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	CHECK_EQ(p4dp_identity64(l, 10), 0x030405060708090aull);
}

static void test_masks(void)
{
	CHECK_EQ(p4dp_mask64(0), 0);
	CHECK_EQ(p4dp_mask64(1), 1);
	CHECK_EQ(p4dp_mask64(63), 0x7fffffffffffffffull);
	CHECK_EQ(p4dp_mask64(64), ~0ull);
	CHECK_EQ((uint64_t)(p4dp_mask128(128) >> 64), ~0ull);
	CHECK_EQ((uint64_t)(p4dp_mask128(65) >> 64), 1);
	CHECK_EQ(p4dp_sext64(0x80, 8), -128);
	CHECK_EQ(p4dp_sext64(0x7f, 8), 127);
	CHECK_EQ(p4dp_sext64(1, 1), -1);
	CHECK_EQ(p4dp_sext64(0x8000000000000000ull, 64), 0x8000000000000000ull);
	CHECK_EQ((int64_t)p4dp_sext128((p4dp_u128)1 << 99, 100), 0); /* low 64 bits of -2^99 */
	CHECK_EQ(p4dp_sext128((p4dp_u128)1 << 99, 100) < 0, 1);
	CHECK_EQ(p4dp_sar64(0x80, 8, 3), 0xf0);
	CHECK_EQ(p4dp_sar64(0x80, 8, 100), 0xff);
	CHECK_EQ(p4dp_sar64(0x40, 8, 100), 0);
	CHECK_EQ(p4dp_sar64(0x40, 8, 2), 0x10);
	CHECK_EQ((uint64_t)p4dp_sar128((p4dp_u128)1 << 99, 100, 99), p4dp_mask64(64));
}

static void test_sat(void)
{
	CHECK_EQ(p4dp_addsat_u64(250, 10, 8), 255);
	CHECK_EQ(p4dp_addsat_u64(25, 10, 8), 35);
	CHECK_EQ(p4dp_addsat_u64(~0ull, 1, 64), ~0ull);
	CHECK_EQ(p4dp_subsat_u64(3, 10, 8), 0);
	CHECK_EQ(p4dp_subsat_u64(10, 3, 8), 7);
	/* int<8>: 100 + 100 = 127; -100 + -100 = -128; -100 - 100 = -128 */
	CHECK_EQ(p4dp_addsat_s64(100, 100, 8), 0x7f);
	CHECK_EQ(p4dp_addsat_s64(0x9c, 0x9c, 8), 0x80);
	CHECK_EQ(p4dp_subsat_s64(0x9c, 100, 8), 0x80);
	CHECK_EQ(p4dp_subsat_s64(100, 0x9c, 8), 0x7f);
	CHECK_EQ(p4dp_addsat_s64(5, 0xfe, 8), 3);
	CHECK_EQ(p4dp_addsat_s64(0x7fffffffffffffffull, 1, 64), 0x7fffffffffffffffull);
	CHECK_EQ(p4dp_subsat_s64(0x8000000000000000ull, 1, 64), 0x8000000000000000ull);
	p4dp_u128 m127 = p4dp_mask128(127);
	CHECK_EQ(p4dp_addsat_s128(m127, 1, 128) == m127, 1);
	CHECK_EQ(p4dp_subsat_s128(m127 + 1, 1, 128) == m127 + 1, 1);
	CHECK_EQ(p4dp_addsat_u128(p4dp_mask128(100), 1, 100) == p4dp_mask128(100), 1);
	CHECK_EQ(p4dp_subsat_u128(1, 2, 100) == 0, 1);
}

static void test_bits(void)
{
	uint8_t b[4] = { 0xde, 0xad, 0xbe, 0xef };
	CHECK_EQ(p4dp_bits_get64(b, 0, 32), 0xdeadbeef);
	CHECK_EQ(p4dp_bits_get64(b, 0, 4), 0xd);
	CHECK_EQ(p4dp_bits_get64(b, 4, 8), 0xea);
	CHECK_EQ(p4dp_bits_get64(b, 3, 9), 0x1ea); /* bits 3..11 of 1101 1110 1010 1101 */
	CHECK_EQ(p4dp_bits_get64(b, 31, 1), 1);
	CHECK_EQ(p4dp_bits_get64(b, 28, 4), 0xf);
	CHECK_EQ(p4dp_bits_get64(b, 1, 1), 1);
	CHECK_EQ(p4dp_bits_get64(b, 2, 1), 0);

	/* set at odd offsets across bytes, keeping neighbours */
	uint8_t z[5] = { 0 };
	p4dp_bits_set64(z, 3, 9, 0x1ff);
	CHECK_EQ(z[0], 0x1f);
	CHECK_EQ(z[1], 0xf0);
	CHECK_EQ(z[2], 0);
	p4dp_bits_set64(z, 5, 2, 0);
	CHECK_EQ(z[0], 0x19);
	/* at the buffer end: last bit of a 5-byte buffer */
	p4dp_bits_set64(z, 39, 1, 1);
	CHECK_EQ(z[4], 0x01);
	CHECK_EQ(p4dp_bits_get64(z, 39, 1), 1);

	/* 64-bit value at offset 7 spans 9 bytes */
	uint8_t w[10];
	memset(w, 0xaa, sizeof w);
	p4dp_bits_set64(w, 7, 64, 0x0123456789abcdefull);
	CHECK_EQ(p4dp_bits_get64(w, 7, 64), 0x0123456789abcdefull);
	CHECK_EQ(w[0] & 0xfe, 0xaa);
	CHECK_EQ(w[9], 0xaa);

	/* 128-bit values */
	uint8_t q[18] = { 0 };
	p4dp_u128 v = ((p4dp_u128)0x0123456789abcdefull << 64) | 0xfedcba9876543210ull;
	p4dp_bits_set128(q, 5, 128, v);
	CHECK_EQ(p4dp_bits_get128(q, 5, 128) == v, 1);
	CHECK_EQ(q[0], 0x01 >> 5);
	p4dp_bits_set128(q, 0, 100, v);
	CHECK_EQ(p4dp_bits_get128(q, 0, 100) == (v & p4dp_mask128(100)), 1);

	/* copy bits, aligned and unaligned */
	uint8_t src[6] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc }, dst[7] = { 0 };
	p4dp_bits_copy(dst, 0, src, 0, 44);
	CHECK_EQ(dst[4], 0x9a);
	CHECK_EQ(dst[5], 0xb0);
	memset(dst, 0, sizeof dst);
	p4dp_bits_copy(dst, 3, src, 4, 40);
	CHECK_EQ(p4dp_bits_get64(dst, 3, 40), 0x23456789abull);
	CHECK_EQ(dst[0] >> 5, 0);
}

static void test_rand(void)
{
	uint64_t st = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t r = p4dp_rand_range(&st, 10, 20);
		if (r < 10 || r > 20) {
			fprintf(stderr, "random out of range: %llu\n", (unsigned long long)r);
			failures++;
			break;
		}
	}
	CHECK_EQ(p4dp_rand_range(&st, 5, 5), 5);
	CHECK_EQ(p4dp_rand_range(&st, 7, 3), 7);
}

/* perf helpers: fixed-size big-endian loads/stores and the small move agree with the bit accessors */
static void test_be_fixed(void)
{
	uint8_t buf[40], ref[40];
	for (unsigned i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 37u + 11u);
	for (unsigned n = 1; n <= 8; n++)
		for (unsigned off = 0; off < 8; off++) {
			CHECK_EQ(p4dp_ld_be(buf + off, n), p4dp_bits_get64(buf, off * 8u, n * 8u));
			uint64_t v = 0x0123456789abcdefull * (n + off);
			memcpy(ref, buf, sizeof ref);
			p4dp_bits_set64(ref, off * 8u, n * 8u, v & p4dp_mask64(n * 8u));
			uint8_t t[40];
			memcpy(t, buf, sizeof t);
			p4dp_st_be(t + off, n, v & p4dp_mask64(n * 8u));
			CHECK_EQ(memcmp(t, ref, sizeof t), 0);
		}
	for (unsigned n = 9; n <= 16; n++) {
		p4dp_u128 v = p4dp_ld_be128(buf + 3, n);
		CHECK_EQ((uint64_t)v, p4dp_bits_get64(buf, 3u * 8u + (n - 8u) * 8u, 64));
		CHECK_EQ((uint64_t)(v >> 64), p4dp_bits_get64(buf, 24, (n - 8u) * 8u));
		uint8_t t[40];
		memset(t, 0, sizeof t);
		p4dp_st_be128(t + 3, n, v);
		CHECK_EQ(memcmp(t + 3, buf + 3, n), 0);
		CHECK_EQ(t[2] | t[3 + n], 0);
	}
	for (unsigned n = 0; n <= 40 - 4; n++) /* overlapping both ways, and disjoint */
		for (int shift = -4; shift <= 4; shift += 4) {
			uint8_t a[48], b[48];
			for (unsigned i = 0; i < sizeof a; i++)
				a[i] = b[i] = (uint8_t)(i + 1u);
			if (n + 4u + (unsigned)(shift < 0 ? 0 : shift) > sizeof a - 4u)
				continue;
			p4dp_move_small(a + 4 + shift, a + 4, n);
			memmove(b + 4 + shift, b + 4, n);
			CHECK_EQ(memcmp(a, b, sizeof a), 0);
		}
}

int main(void)
{
	test_be_fixed();
	test_crc();
	test_csum();
	test_xor_identity();
	test_masks();
	test_sat();
	test_bits();
	test_rand();
	if (failures) {
		fprintf(stderr, "test_prim: %d failure(s)\n", failures);
		return 1;
	}
	printf("test_prim: all passed\n");
	return 0;
}
