/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A hand-written "compiled program" with a meter of each type (enum p4dp_meter_type), used by
 * test_meter.c (built with: cc -shared -fPIC -I runtime/include -o m.so rt_prog_meters.c).
 *
 * Packet layout (bytes): [0] the meter's extern index, [1] the cell. The packet is sent to the
 * port of its colour (P4DP_GREEN 0, P4DP_YELLOW 1, P4DP_RED 2), its length metered by byte meters.
 */
#include <stdint.h>

#include "p4dp/abi.h"

enum { X_TWO_RATE, X_SINGLE_RATE, X_TWO_COLOR, X_SINGLE_RATE_PKTS, X_N };

static const struct p4dp_extern_info externs[] = {
	[X_TWO_RATE] = { .name = "ingress.two_rate", .id = 3001, .kind = P4DP_EXT_METER, .unit = P4DP_UNIT_BYTES,
			 .n_cells = 4, .table = -1, .meter_type = P4DP_METER_TWO_RATE_THREE_COLOR },
	[X_SINGLE_RATE] = { .name = "ingress.single_rate", .id = 3002, .kind = P4DP_EXT_METER,
			    .unit = P4DP_UNIT_BYTES, .n_cells = 4, .table = -1,
			    .meter_type = P4DP_METER_SINGLE_RATE_THREE_COLOR },
	[X_TWO_COLOR] = { .name = "ingress.two_color", .id = 3003, .kind = P4DP_EXT_METER, .unit = P4DP_UNIT_BYTES,
			  .n_cells = 4, .table = -1, .meter_type = P4DP_METER_SINGLE_RATE_TWO_COLOR },
	[X_SINGLE_RATE_PKTS] = { .name = "ingress.single_rate_pkts", .id = 3004, .kind = P4DP_EXT_METER,
				 .unit = P4DP_UNIT_PACKETS, .n_cells = 4, .table = -1,
				 .meter_type = P4DP_METER_SINGLE_RATE_THREE_COLOR },
};

static void process(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt)
{
	const uint8_t *d = pkt->data;
	if (pkt->len < 2 || d[0] >= X_N) {
		pkt->out_port = P4DP_PORT_DROP;
		return;
	}
	pkt->out_port = p4dp_meter_execute(ctx, d[0], d[1], pkt->len);
}

const struct p4dp_program p4dp_program = {
	.abi_version = P4DP_ABI_VERSION,
	.name = "meters",
	.arch = "v1model",
	.n_externs = X_N,
	.externs = externs,
	.process = process,
};
