/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to libp4dp_bench.so: what the taps (bench_dp.c, bench_trace.c) share. */
#ifndef P4DP_BENCH_PORTS_H
#define P4DP_BENCH_PORTS_H

#include <stdint.h>

/**
 * Find the ethdev ids of the ports "p4dpb<seq>_<i>" (i < @p np) of the single live bench (bench.c
 * names its net_ring ports so) and that bench's sequence number, whose rings are "p4dpb<seq>_<i>".
 * @return 0; -EINVAL (more than one bench exists); -ENODEV (a port is missing; the message lists
 *         the ports seen). Context: control thread. Thread safety: none needed beyond ethdev's own.
 */
int p4dp_bench_ports_find(uint32_t np, uint16_t *ports, uint32_t *seq_out);

#endif /* P4DP_BENCH_PORTS_H */
