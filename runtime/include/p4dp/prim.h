/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file prim.h
 * Inline primitives used by generated C code (and testable on their own).
 *
 * Conventions:
 *  - A value of width W <= 64 lives in the smallest of uint8/16/32/64_t, W <= 128 in p4dp_u128;
 *    it is always masked to W bits. Signed values (P4 int<W>) are stored as masked two's complement
 *    and sign-extended with p4dp_sext64/128 where the sign matters.
 *  - A *bit string* is a byte buffer in network order: bit offset 0 is the most significant bit of
 *    byte 0 (packet bytes, emit buffers, wide values > 128 bits, hash/checksum inputs).
 *    The bit accessors touch only the bytes that hold the addressed bits, so callers bound-check
 *    `off + w <= 8 * buffer_len` and nothing is read or written outside.
 *
 * Context: any thread. Thread safety: all functions are pure or only touch their arguments.
 * Nothing here depends on DPDK or on the rest of the runtime.
 */
#ifndef P4DP_PRIM_H
#define P4DP_PRIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

__extension__ typedef unsigned __int128 p4dp_u128;
__extension__ typedef __int128 p4dp_s128;

/* ------------------------------------------------------------------------------------------ */
/* Masks, sign extension, shifts                                                               */

/** All-ones in the low @p w bits, 0 <= w <= 64. */
static inline uint64_t p4dp_mask64(unsigned w)
{
	return w >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
}

/** All-ones in the low @p w bits, 0 <= w <= 128. */
static inline p4dp_u128 p4dp_mask128(unsigned w)
{
	return w >= 128 ? ~(p4dp_u128)0 : ((((p4dp_u128)1) << w) - 1);
}

/** Sign-extend the low @p w bits of @p v (1 <= w <= 64). */
static inline int64_t p4dp_sext64(uint64_t v, unsigned w)
{
	if (w >= 64)
		return (int64_t)v;
	uint64_t m = (uint64_t)1 << (w - 1);
	v &= p4dp_mask64(w);
	return (int64_t)((v ^ m) - m);
}

/** Sign-extend the low @p w bits of @p v (1 <= w <= 128). */
static inline p4dp_s128 p4dp_sext128(p4dp_u128 v, unsigned w)
{
	if (w >= 128)
		return (p4dp_s128)v;
	p4dp_u128 m = (p4dp_u128)1 << (w - 1);
	v &= p4dp_mask128(w);
	return (p4dp_s128)((v ^ m) - m);
}

/** Arithmetic right shift of the w-bit signed value @p v by @p s (any s; s >= w gives sign fill). */
static inline uint64_t p4dp_sar64(uint64_t v, unsigned w, uint64_t s)
{
	int64_t x = p4dp_sext64(v, w);
	unsigned sh = s >= w ? w - 1 : (unsigned)s;
	if (sh > 63)
		sh = 63;
	return (uint64_t)(x >> sh) & p4dp_mask64(w);
}

static inline p4dp_u128 p4dp_sar128(p4dp_u128 v, unsigned w, p4dp_u128 s)
{
	p4dp_s128 x = p4dp_sext128(v, w);
	unsigned sh = s >= w ? w - 1 : (unsigned)s;
	if (sh > 127)
		sh = 127;
	return (p4dp_u128)(x >> sh) & p4dp_mask128(w);
}

/* ------------------------------------------------------------------------------------------ */
/* Saturating arithmetic on w-bit values (inputs masked; results masked)                      */

static inline uint64_t p4dp_addsat_u64(uint64_t a, uint64_t b, unsigned w)
{
	uint64_t m = p4dp_mask64(w), r = a + b;
	if (r < a || r > m)
		return m;
	return r;
}

static inline uint64_t p4dp_subsat_u64(uint64_t a, uint64_t b, unsigned w)
{
	(void)w;
	return a > b ? a - b : 0;
}

static inline uint64_t p4dp_addsat_s64(uint64_t a, uint64_t b, unsigned w)
{
	p4dp_s128 x = (p4dp_s128)p4dp_sext64(a, w) + p4dp_sext64(b, w);
	p4dp_s128 hi = (p4dp_s128)(p4dp_mask64(w - 1)), lo = -hi - 1;
	if (x > hi)
		x = hi;
	if (x < lo)
		x = lo;
	return (uint64_t)x & p4dp_mask64(w);
}

static inline uint64_t p4dp_subsat_s64(uint64_t a, uint64_t b, unsigned w)
{
	p4dp_s128 x = (p4dp_s128)p4dp_sext64(a, w) - p4dp_sext64(b, w);
	p4dp_s128 hi = (p4dp_s128)(p4dp_mask64(w - 1)), lo = -hi - 1;
	if (x > hi)
		x = hi;
	if (x < lo)
		x = lo;
	return (uint64_t)x & p4dp_mask64(w);
}

static inline p4dp_u128 p4dp_addsat_u128(p4dp_u128 a, p4dp_u128 b, unsigned w)
{
	p4dp_u128 m = p4dp_mask128(w), r = a + b;
	if (r < a || r > m)
		return m;
	return r;
}

static inline p4dp_u128 p4dp_subsat_u128(p4dp_u128 a, p4dp_u128 b, unsigned w)
{
	(void)w;
	return a > b ? a - b : 0;
}

static inline p4dp_u128 p4dp_addsat_s128(p4dp_u128 a, p4dp_u128 b, unsigned w)
{
	p4dp_s128 x = p4dp_sext128(a, w), y = p4dp_sext128(b, w);
	p4dp_s128 hi = (p4dp_s128)p4dp_mask128(w - 1), lo = -hi - 1;
	p4dp_s128 r;
	if (__builtin_add_overflow(x, y, &r))
		return (p4dp_u128)(y > 0 ? hi : lo) & p4dp_mask128(w);
	if (r > hi)
		r = hi;
	if (r < lo)
		r = lo;
	return (p4dp_u128)r & p4dp_mask128(w);
}

static inline p4dp_u128 p4dp_subsat_s128(p4dp_u128 a, p4dp_u128 b, unsigned w)
{
	p4dp_s128 x = p4dp_sext128(a, w), y = p4dp_sext128(b, w);
	p4dp_s128 hi = (p4dp_s128)p4dp_mask128(w - 1), lo = -hi - 1;
	p4dp_s128 r;
	if (__builtin_sub_overflow(x, y, &r))
		return (p4dp_u128)(y < 0 ? hi : lo) & p4dp_mask128(w);
	if (r > hi)
		r = hi;
	if (r < lo)
		r = lo;
	return (p4dp_u128)r & p4dp_mask128(w);
}

/* ------------------------------------------------------------------------------------------ */
/* Bit strings (network order)                                                                  */

/** Read @p w bits (1..64) at bit offset @p off of @p buf as an unsigned integer. Reads only the
 *  bytes [off/8, (off+w-1)/8]. */
static inline uint64_t p4dp_bits_get64(const uint8_t *buf, uint32_t off, unsigned w)
{
	const uint8_t *p = buf + (off >> 3);
	unsigned lead = off & 7u;              /* bits to skip in the first byte */
	unsigned nbytes = (lead + w + 7u) >> 3; /* 1..9 */
	p4dp_u128 acc = 0;
	for (unsigned i = 0; i < nbytes; i++)
		acc = (acc << 8) | p[i];
	acc >>= nbytes * 8u - lead - w;
	return (uint64_t)(acc & p4dp_mask128(w));
}

/** Write the low @p w bits (1..64) of @p v at bit offset @p off; other bits are kept. */
static inline void p4dp_bits_set64(uint8_t *buf, uint32_t off, unsigned w, uint64_t v)
{
	uint8_t *p = buf + (off >> 3);
	unsigned lead = off & 7u;
	unsigned nbytes = (lead + w + 7u) >> 3;
	unsigned tail = nbytes * 8u - lead - w; /* bits after the field in the last byte */
	p4dp_u128 acc = 0;
	for (unsigned i = 0; i < nbytes; i++)
		acc = (acc << 8) | p[i];
	p4dp_u128 m = p4dp_mask128(w) << tail;
	acc = (acc & ~m) | (((p4dp_u128)v << tail) & m);
	for (unsigned i = nbytes; i-- > 0;) {
		p[i] = (uint8_t)acc;
		acc >>= 8;
	}
}

/** Read @p w bits (1..128) at bit offset @p off. */
static inline p4dp_u128 p4dp_bits_get128(const uint8_t *buf, uint32_t off, unsigned w)
{
	if (w <= 64)
		return p4dp_bits_get64(buf, off, w);
	p4dp_u128 hi = p4dp_bits_get64(buf, off, w - 64);
	return (hi << 64) | p4dp_bits_get64(buf, off + (w - 64), 64);
}

/** Write the low @p w bits (1..128) of @p v at bit offset @p off. */
static inline void p4dp_bits_set128(uint8_t *buf, uint32_t off, unsigned w, p4dp_u128 v)
{
	if (w <= 64) {
		p4dp_bits_set64(buf, off, w, (uint64_t)v);
		return;
	}
	p4dp_bits_set64(buf, off, w - 64, (uint64_t)(v >> 64));
	p4dp_bits_set64(buf, off + (w - 64), 64, (uint64_t)v);
}

/** Copy @p n bits from @p src at bit @p soff to @p dst at bit @p doff (buffers must not overlap). */
static inline void p4dp_bits_copy(uint8_t *dst, uint32_t doff, const uint8_t *src, uint32_t soff, uint32_t n)
{
	if (((doff | soff) & 7u) == 0) {
		memcpy(dst + (doff >> 3), src + (soff >> 3), n >> 3);
		uint32_t done = n & ~7u;
		if (n & 7u)
			p4dp_bits_set64(dst, doff + done, n & 7u, p4dp_bits_get64(src, soff + done, n & 7u));
		return;
	}
	while (n > 0) {
		unsigned c = n > 56 ? 56 : n;
		p4dp_bits_set64(dst, doff, c, p4dp_bits_get64(src, soff, c));
		doff += c;
		soff += c;
		n -= c;
	}
}

/* Fixed-size big-endian loads/stores (perf: generated code uses them for byte-aligned header
 * chunks; @p n is a compile-time constant there, so each call folds to one or two loads/stores
 * and byte swaps). They touch exactly the bytes p[0..n). */

static inline uint16_t p4dp_be16(uint16_t x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap16(x);
#else
	return x;
#endif
}

static inline uint32_t p4dp_be32(uint32_t x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap32(x);
#else
	return x;
#endif
}

static inline uint64_t p4dp_be64(uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64(x);
#else
	return x;
#endif
}

static inline uint64_t p4dp_ld16(const uint8_t *p)
{
	uint16_t x;
	memcpy(&x, p, 2);
	return p4dp_be16(x);
}

static inline uint64_t p4dp_ld32(const uint8_t *p)
{
	uint32_t x;
	memcpy(&x, p, 4);
	return p4dp_be32(x);
}

static inline uint64_t p4dp_ld64(const uint8_t *p)
{
	uint64_t x;
	memcpy(&x, p, 8);
	return p4dp_be64(x);
}

/** Read @p n (1..8) bytes at @p p as a big-endian unsigned integer. */
static inline uint64_t p4dp_ld_be(const uint8_t *p, unsigned n)
{
	switch (n) {
	case 1: return p[0];
	case 2: return p4dp_ld16(p);
	case 3: return (p4dp_ld16(p) << 8) | p[2];
	case 4: return p4dp_ld32(p);
	case 5: return (p4dp_ld32(p) << 8) | p[4];
	case 6: return (p4dp_ld32(p) << 16) | p4dp_ld16(p + 4);
	case 7: return (p4dp_ld32(p) << 24) | (p4dp_ld16(p + 4) << 8) | p[6];
	default: return p4dp_ld64(p);
	}
}

/** Write the low 8*@p n bits (n = 1..8) of @p v at @p p, big-endian. */
static inline void p4dp_st_be(uint8_t *p, unsigned n, uint64_t v)
{
	uint16_t h;
	uint32_t w;
	switch (n) {
	case 1: p[0] = (uint8_t)v; return;
	case 2: h = p4dp_be16((uint16_t)v); memcpy(p, &h, 2); return;
	case 3: h = p4dp_be16((uint16_t)(v >> 8)); memcpy(p, &h, 2); p[2] = (uint8_t)v; return;
	case 4: w = p4dp_be32((uint32_t)v); memcpy(p, &w, 4); return;
	case 5: w = p4dp_be32((uint32_t)(v >> 8)); memcpy(p, &w, 4); p[4] = (uint8_t)v; return;
	case 6: w = p4dp_be32((uint32_t)(v >> 16)); memcpy(p, &w, 4);
		h = p4dp_be16((uint16_t)v); memcpy(p + 4, &h, 2); return;
	case 7: w = p4dp_be32((uint32_t)(v >> 24)); memcpy(p, &w, 4);
		h = p4dp_be16((uint16_t)(v >> 8)); memcpy(p + 4, &h, 2); p[6] = (uint8_t)v; return;
	default: v = p4dp_be64(v); memcpy(p, &v, 8); return;
	}
}

/** Read @p n (9..16) bytes at @p p as a big-endian unsigned 128-bit integer. */
static inline p4dp_u128 p4dp_ld_be128(const uint8_t *p, unsigned n)
{
	return ((p4dp_u128)p4dp_ld_be(p, n - 8) << 64) | p4dp_ld64(p + n - 8);
}

/** Write the low 8*@p n bits (n = 9..16) of @p v at @p p, big-endian. */
static inline void p4dp_st_be128(uint8_t *p, unsigned n, p4dp_u128 v)
{
	p4dp_st_be(p, n - 8, (uint64_t)(v >> 64));
	p4dp_st_be(p + n - 8, 8, (uint64_t)v);
}

/** memmove() of @p n bytes, inline for n <= 32 (perf: headers in front of the payload). All
 *  loads happen before the stores, so overlapping buffers are fine. */
static inline void p4dp_move_small(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	if (n >= 8 && n <= 16) {
		uint64_t a, b;
		memcpy(&a, src, 8);
		memcpy(&b, src + n - 8, 8);
		memcpy(dst, &a, 8);
		memcpy(dst + n - 8, &b, 8);
	} else if (n > 16 && n <= 32) {
		uint64_t a, b, c, d;
		memcpy(&a, src, 8);
		memcpy(&b, src + 8, 8);
		memcpy(&c, src + n - 16, 8);
		memcpy(&d, src + n - 8, 8);
		memcpy(dst, &a, 8);
		memcpy(dst + 8, &b, 8);
		memcpy(dst + n - 16, &c, 8);
		memcpy(dst + n - 8, &d, 8);
	} else if (n >= 4 && n < 8) {
		uint32_t a, b;
		memcpy(&a, src, 4);
		memcpy(&b, src + n - 4, 4);
		memcpy(dst, &a, 4);
		memcpy(dst + n - 4, &b, 4);
	} else {
		memmove(dst, src, n);
	}
}

/** Compare @p n bytes (wide values); returns 1 when equal. */
static inline int p4dp_bytes_eq(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	return memcmp(a, b, n) == 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Checksums and hashes over byte strings                                                       */

/**
 * Add @p len bytes to a running ones'-complement sum. @p pos is the byte position of p[0] in the
 * whole checksummed stream (only its parity matters), so a stream can be summed in pieces.
 */
static inline uint64_t p4dp_csum16_add(uint64_t sum, const uint8_t *p, uint32_t len, uint32_t pos)
{
	uint32_t i = 0;
	if ((pos & 1u) && len > 0) {
		sum += p[0];
		i = 1;
	}
	for (; i + 1 < len; i += 2)
		sum += ((uint32_t)p[i] << 8) | p[i + 1];
	if (i < len)
		sum += (uint32_t)p[i] << 8;
	return sum;
}

/** Fold a running sum and complement it: the Internet checksum (RFC 1071). */
static inline uint16_t p4dp_csum16_finish(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFFu) + (sum >> 16);
	return (uint16_t)~sum;
}

/** The 16-bit ones' complement Internet checksum of @p len bytes (odd length: zero padded). */
static inline uint16_t p4dp_csum16(const uint8_t *p, uint32_t len)
{
	return p4dp_csum16_finish(p4dp_csum16_add(0, p, len, 0));
}

/** Parameters of a CRC in the Rocksoft/Williams model (width 1..32). */
struct p4dp_crc_params {
	uint32_t poly;
	uint32_t init;
	uint32_t xorout;
	uint8_t width;
	uint8_t refin;
	uint8_t refout;
};

static inline uint32_t p4dp_reflect(uint32_t v, unsigned w)
{
	uint32_t r = 0;
	for (unsigned i = 0; i < w; i++) {
		r = (r << 1) | (v & 1u);
		v >>= 1;
	}
	return r;
}

/** Begin a CRC computation: the register's initial value. */
static inline uint32_t p4dp_crc_begin(const struct p4dp_crc_params *c)
{
	return c->init & (uint32_t)p4dp_mask64(c->width);
}

/** Feed @p len bytes into the CRC register @p reg (MSB-first register, reflected input if refin). */
static inline uint32_t p4dp_crc_update(const struct p4dp_crc_params *c, uint32_t reg, const uint8_t *p,
				       uint32_t len)
{
	const unsigned w = c->width;
	const uint32_t top = (uint32_t)1 << (w - 1), m = (uint32_t)p4dp_mask64(w);
	for (uint32_t i = 0; i < len; i++) {
		uint32_t byte = c->refin ? p4dp_reflect(p[i], 8) : p[i];
		for (int b = 7; b >= 0; b--) {
			uint32_t in = (byte >> b) & 1u;
			uint32_t fb = ((reg & top) ? 1u : 0u) ^ in;
			reg = (reg << 1) & m;
			if (fb)
				reg ^= c->poly;
		}
	}
	return reg & m;
}

/** Finish a CRC computation. */
static inline uint32_t p4dp_crc_finish(const struct p4dp_crc_params *c, uint32_t reg)
{
	if (c->refout)
		reg = p4dp_reflect(reg, c->width);
	return (reg ^ c->xorout) & (uint32_t)p4dp_mask64(c->width);
}

/** CRC-16/ARC (poly 0x8005, init 0, reflected, xorout 0): v1model's crc16 and crc16_custom default. */
static const struct p4dp_crc_params p4dp_crc16_arc = { 0x8005u, 0, 0, 16, 1, 1 };
/** CRC-32 (ISO-HDLC): v1model's crc32 and crc32_custom default. */
static const struct p4dp_crc_params p4dp_crc32_std = { 0x04C11DB7u, 0xFFFFFFFFu, 0xFFFFFFFFu, 32, 1, 1 };
/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, not reflected). */
static const struct p4dp_crc_params p4dp_crc16_ccitt = { 0x1021u, 0xFFFFu, 0, 16, 0, 0 };

static inline uint32_t p4dp_crc(const struct p4dp_crc_params *c, const uint8_t *p, uint32_t len)
{
	return p4dp_crc_finish(c, p4dp_crc_update(c, p4dp_crc_begin(c), p, len));
}

static inline uint16_t p4dp_crc16(const uint8_t *p, uint32_t len)
{
	return (uint16_t)p4dp_crc(&p4dp_crc16_arc, p, len);
}

static inline uint32_t p4dp_crc32(const uint8_t *p, uint32_t len)
{
	return p4dp_crc(&p4dp_crc32_std, p, len);
}

/** XOR of the big-endian 16-bit words of @p p (an odd last byte is the high byte of a word).
 *  @p pos is the stream position of p[0] as for p4dp_csum16_add. */
static inline uint16_t p4dp_xor16_add(uint16_t acc, const uint8_t *p, uint32_t len, uint32_t pos)
{
	for (uint32_t i = 0; i < len; i++)
		acc ^= (uint16_t)(((pos + i) & 1u) ? p[i] : (uint16_t)(p[i] << 8));
	return acc;
}

static inline uint16_t p4dp_xor16(const uint8_t *p, uint32_t len)
{
	return p4dp_xor16_add(0, p, len, 0);
}

/** Identity hash: the last (up to) 8 bytes of @p p as a big-endian integer. */
static inline uint64_t p4dp_identity64(const uint8_t *p, uint32_t len)
{
	uint64_t v = 0;
	for (uint32_t i = len > 8 ? len - 8 : 0; i < len; i++)
		v = (v << 8) | p[i];
	return v;
}

/** xorshift64* step for random(); @p state must be nonzero (zero is replaced by a constant). */
static inline uint64_t p4dp_rand_next(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ull;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/** A value uniformly-ish in [lo, hi] (hi < lo gives lo); 64-bit values. */
static inline uint64_t p4dp_rand_range(uint64_t *state, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return lo;
	uint64_t span = hi - lo + 1;
	uint64_t r = p4dp_rand_next(state);
	return span == 0 ? lo + r : lo + r % span;
}

#ifdef __cplusplus
}
#endif
#endif /* P4DP_PRIM_H */
