/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private declarations of the runtime core (runtime.c, ctl.c, externs.c, pkt.c, port.c, worker.c).
 * Not part of any ABI: only runtime/src includes this file.
 */
#ifndef P4DP_RT_INTERNAL_H
#define P4DP_RT_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "conv.h"
#include "err.h"
#include "p4dp/abi.h"
#include "p4dp/rt.h"

struct rte_mempool;
struct rte_mbuf;
struct rte_ring;

/** Bytes of headroom/tailroom given to packets processed by p4dp_runtime_packet_inject(). */
#define RT_INJECT_HEADROOM 512u
/* background pipelines a program may have (rtc.p4 has packages with one to three) */
#define P4DP_RT_MAX_BACKGROUND 8u
#define RT_INJECT_TAILROOM (P4DP_EMIT_MAX + 512u)

/** Packets a worker buffers per output port before a tx burst. */
#define RT_TXBUF 64u
#define RT_BURST 32u

/** Statistics add by the only writer of @p x: a relaxed store is enough because each counter has a
 *  single writer (its worker) and readers only need an eventually-consistent, untorn 64-bit value. */
#define RT_STAT_ADD(x, n) __atomic_store_n(&(x), (x) + (n), __ATOMIC_RELAXED)
#define RT_STAT_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* ---- externs ---- */

/** Meter configuration: immutable once published (replaced as a whole, freed after RCU). */
struct rt_meter_cfg {
	struct p4dp_meter_config c;
	uint8_t type;       /* enum p4dp_meter_type of the meter */
	/* bucket depths on the bucket's clock (externs.c): ns to fill from empty at the rate
	 * (saturating), or units for a rate of 0 */
	uint64_t cburst_ns; /* committed bucket (CBS) */
	uint64_t pburst_ns; /* two-rate three-colour: peak bucket (PBS) */
	uint64_t eburst_ns; /* single-rate three-colour: excess bucket (EBS) */
};

/** One meter cell. Each bucket is one 64-bit word updated by CAS (see externs.c). */
struct rt_meter_cell {
	struct rt_meter_cfg *cfg; /* NULL: unconfigured (GREEN); release/acquire published */
	uint64_t p_state;         /* peak bucket: time the bucket is full again (ns), or used units if
				   * rate 0; single-rate three-colour: the committed and excess buckets
				   * together (externs.c) */
	uint64_t c_state;         /* committed bucket: as p_state */
};

/** Per-colour counts of one meter cell on one worker (indexed by enum p4dp_color). Single writer
 *  (the worker, RT_STAT_ADD); the control thread sums the workers' on read. */
struct rt_meter_counts {
	uint64_t packets[3];
	uint64_t bytes[3];
};

struct rt_meter_set {
	uint32_t n_cells;
	uint8_t unit; /* enum p4dp_counter_unit */
	/* per-colour counts: worker w's block starts at counts + w * stride (stride >= n_cells, a
	 * multiple of 4 cells = 3 cache lines, so no two workers write one line) */
	uint32_t stride;
	struct rt_meter_counts *counts;
	struct rt_meter_cell cells[];
};

/** Single-producer (a worker) single-consumer (the control thread) ring of fixed-size digests. */
struct rt_digest_q {
	uint32_t mask;     /* slots - 1 (slots is a power of two) */
	uint32_t slot_len; /* bytes per message */
	uint64_t head;     /* written by the worker (release), read by the consumer (acquire) */
	uint64_t tail;     /* written by the consumer (release), read by the worker (acquire) */
	uint64_t drops;
	uint8_t slots[];
};

/* ---- multicast ---- */

struct rt_mcast_rep {
	uint32_t port;
	uint16_t rid;
	/* control lists only: 1 = a backup of the replica before it (its chain: the replica, then its
	 * backups in order; the first whose port is live makes the copy, liveness.c) */
	uint16_t backup;
};

/** Published (immutable) replica list of a group: the replicas whose chain has a live port. */
struct rt_mcast_list {
	uint32_t n;
	uint32_t n_down; /* replicas left out because every port of their chain is down (counted per packet) */
	struct rt_mcast_rep reps[];
};

/** Published (immutable) replica list of a clone session. */
struct rt_clone_list {
	uint32_t n;      /* replicas the data plane uses: reps[0..n) (the first live port of each chain) */
	uint32_t n_down; /* replicas left out because every port of their chain is down */
	uint32_t trunc;  /* truncation length of the clones in bytes, 0 = none */
	uint8_t cos;     /* class of service: the clones' v1model priority */
	/* a session to a multicast group (STF mirroring_add_mc): the clones are the group's replicas
	 * when the packet is cloned, and reps is empty; P4DP_RT_MCAST_GROUPS = a list of replicas */
	uint32_t group;
	/* the session as written (control thread only): reps[n .. n + n_cands) holds every replica and
	 * backup with its backup flag, from which a liveness change builds the next version */
	uint32_t n_cands;
	struct rt_mcast_rep reps[];
};

struct rt_mcast_node {
	bool used;
	uint16_t rid;
	uint32_t n_ports;
	uint32_t *ports; /* sorted ascending, unique */
	int32_t group;   /* associated group or -1 */
};

struct rt_mcast_group {
	bool exists;
	uint32_t n_nodes;
	uint32_t *nodes;              /* handles in association order */
	uint32_t n_direct;            /* replicas set by p4dp_runtime_mcast_group_set() */
	struct rt_mcast_rep *direct;
};

/* ---- per-worker state ---- */

struct rt_port_wstats {
	uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes, drops, tx_errors;
};

struct rt_wstats {
	uint64_t packets, drops, finish_errors, copies, copy_errors, asserts, unsupported, no_port, multiseg;
	uint64_t rx_packets;      /* received from a device by this worker */
	uint64_t dispatched_out;  /* software dispatch: handed to another worker's ring */
	uint64_t dispatched_in;   /* software dispatch: taken from this worker's ring */
	uint64_t dispatch_drops;  /* software dispatch: the owner's ring was full (dropped) */
	uint64_t replicas_down;   /* multicast/clone replicas not made: every port of their chain down */
	uint64_t groups_down;     /* selector groups resolved with every member's watch port down (a miss) */
};

struct rt_inject_out {
	uint32_t port;
	uint32_t len;
	uint8_t *data;
};

/** Collector of output packets during p4dp_runtime_packet_inject(). */
struct rt_inject {
	struct rt_inject_out *outs;
	uint32_t n, cap;
	int oom;
};

struct rt_txbuf {
	uint32_t n;
	uint64_t bytes; /* sum of pkt_len of m[0..n) (tx_bytes without a second walk) */
	struct rte_mbuf *m[RT_TXBUF];
};

struct rt_worker {
	struct p4dp_ctx ctx; /* first member: p4dp_ctx * -> rt_worker * */
	struct p4dp_runtime *rt;
	uint32_t id;
	bool drop_pkt;              /* set by p4dp_assert_fail for the packet being processed */
	struct rt_inject *inj;      /* non-NULL while p4dp_runtime_packet_inject() runs on this context */
	struct rt_wstats st;
	struct rt_port_wstats *pst; /* [P4DP_RT_MAX_PORTS], indexed by port slot */
	struct rt_txbuf *txb;       /* [P4DP_RT_MAX_PORTS] */
	uint32_t txmask;            /* bit s set <=> txb[s].n > 0 (flush only those) */
	uint64_t tsc_mult;          /* run clock: ns = ns0 + ((tsc - tsc0) * tsc_mult) >> 32 */
	uint64_t loops;             /* main-loop iterations (relaxed stores; read by the control thread) */
	struct rte_ring *inq;       /* software dispatch: packets other workers hand to this one (MP/SC) */
	int park;                   /* RT_PARK_*: this worker as the batch barrier sees it (batch.c; seq_cst) */
	bool running;
	int lcore;
};

static inline struct rt_worker *rt_worker_of(struct p4dp_ctx *ctx)
{
	return (struct rt_worker *)ctx;
}

/* ---- ports ---- */

struct rt_port {
	bool used;
	uint32_t port_no;     /* P4 port number */
	uint16_t dpdk_port;
	char name[64];        /* vdev name */
	char *devargs;
	int64_t expected_rx;  /* packets in the rx pcap file(s), -1 unknown */
	uint16_t n_txq;       /* tx queues configured for the current run */
	struct rte_ring *txring; /* MP/SC ring for workers without their own tx queue (drained by worker 0) */
	bool started;
	/* ring ports (p4dp_runtime_ring_port_add): the device's rx queue reads ring_in, which control
	 * threads fill; its tx queue writes ring_out, which control threads drain. NULL otherwise. */
	struct rte_ring *ring_in, *ring_out;
};

/* ---- the runtime ---- */

struct p4dp_runtime {
	void *dl;
	struct p4dp_bias *bias;          /* biased entry locks: revocation token (dpwrite.h) */
	struct p4dp_bias_ack *bias_acks; /* [max_workers], one cache line each */
	const struct p4dp_program *prog;
	uint32_t max_workers;
	int socket_id;
	struct p4dp_rcu *rcu;

	struct p4dp_table **tables;
	struct p4dp_entry **defaults;   /* published with release stores, read with acquire */
	uint32_t *capacity;             /* per table */
	/* per table: the default entry's control-plane bytes (P4Runtime metadata; malloc, NULL:
	 * none), under lock below; workers never see them */
	struct rt_default_meta {
		uint8_t *bytes;
		uint32_t len;
	} *default_meta;
	/* per-worker table hit and miss counters: worker w's block starts at w * cnt_stride words
	 * of hits (rte_malloc, cache-line aligned); its hits[n_tables] come first, its misses at
	 * hits + cnt_stride / 2, and cnt_stride is a multiple of a cache line's words, so no two
	 * workers ever write into one line (rt_counters_of()) */
	uint64_t *hits;
	uint32_t cnt_stride;
	void ***ext;                    /* [max_workers][n_externs] */
	struct rt_worker *workers;      /* [max_workers] */
	uint8_t *emit_bufs;             /* [max_workers][P4DP_EMIT_MAX] */

	/* control-side serialization of runtime-level state (defaults, mcast, clone, meters, ports) */
	pthread_mutex_t lock;
	pthread_mutex_t digest_lock; /* serializes pollers (not the producing workers) */

	/* simulated clock for inject(); the running workers use the TSC */
	uint64_t now_ns;
	bool use_sim_time;
	/* rtc.p4 background pipelines run by p4dp_runtime_background_run (rtc_run.c): iterations so
	 * far and the simulated time before which each sleeps (Sleep) */
	uint64_t bg_iter[P4DP_RT_MAX_BACKGROUND];
	uint64_t bg_wake[P4DP_RT_MAX_BACKGROUND];

	/* multicast / clone (v1model PRE) */
	struct rt_mcast_list **mc_lists; /* [P4DP_RT_MCAST_GROUPS], read by workers (acquire) */
	struct rt_mcast_group *mc_groups;
	struct rt_mcast_node *mc_nodes;
	uint32_t n_mc_nodes, cap_mc_nodes;
	struct rt_clone_list **clone_lists; /* [P4DP_RT_CLONE_SESSIONS], NULL = unset; read by workers (acquire) */
	/* port liveness (liveness.c): per P4 port number, RT_PORT_DOWN_* bits (0: live). Written by
	 * control threads under liveness_lock with relaxed atomic stores; read (relaxed) by the
	 * control threads that build the published replica lists and selector groups */
	uint8_t port_down[P4DP_PORT_DROP];
	pthread_mutex_t liveness_lock;
	/* parser value sets: [n_value_sets] published member lists, NULL = empty; read by workers (acquire) */
	struct p4dp_vset_members **vsets;

	/* logging */
	p4dp_log_fn log_fn;
	void *log_arg;
	uint32_t unsupported_logged;

	uint32_t digest_qlen;

	/* ports and running */
	struct rt_port ports[P4DP_RT_MAX_PORTS];
	int16_t port_slot[P4DP_PORT_DROP]; /* P4 port number -> port slot, -1 none (read by workers) */
	uint32_t n_ports;
	struct rte_mempool *pool;
	uint32_t pool_size;
	int running;      /* set while p4dp_runtime_run() executes */
	int stop_workers; /* release store by the control thread; workers load with acquire */
	int batch_gate;   /* RT_GATE_*: the batch barrier (batch.c); workers poll it every loop iteration */
	pthread_mutex_t batch_lock; /* one batch at a time (error-checking: a nested batch is -EDEADLK) */
	int batch_cpu;    /* CPU the thread running a batch last ran on (relaxed atomic hint, batch.c) */
	int dispatching;  /* software dispatch: workers still able to hand packets to others (atomic) */
	uint32_t run_workers;
	uint32_t run_background; /* background threads of the current run: workers[run_workers ..] (rtc_bg.c) */
	uint64_t tsc_hz;
	uint64_t tsc_mult; /* 2^32 ns per TSC cycle: the run clock's ns = ns0 + ((tsc - tsc0) * tsc_mult) >> 32 */
	uint64_t tsc0, ns0;   /* wall clock of a run: relaxed atomics (read by other control threads) */
	int clock_live;       /* 1 while tsc0/ns0 are valid (release store after setting them) */

	/* dispatch of the current run */
	int dispatch_sw;      /* 1: software dispatch through the workers' inq rings; 0: RSS / one worker / none */
	int dispatch_rss;     /* 1: every worker polls its own rx queue of every port (RSS) */
	uint32_t flow_off, flow_len; /* software dispatch flow key: frame bytes [off, off+len); len 0: 5-tuple */
	bool inject_burst;           /* inject() calls process_burst (p4dp_runtime_packet_inject_burst_set) */
	bool any_txring;             /* this run: some port has fewer tx queues than workers (drain_rings) */
	int16_t dpdk_slot[1024];     /* DPDK port id -> port slot (-1), set at run start */

	/* idle-timeout notifications (struct rt_idle_note *), FIFO, under idle_lock */
	pthread_mutex_t idle_lock;
	void **idle_q;
	uint32_t idle_head, idle_n, idle_cap;
	uint64_t idle_drops;
};

/** Capacity of the idle-timeout notification queue (notifications beyond it are counted, dropped). */
#define RT_IDLE_QLEN 65536u

/* port liveness (liveness.c) */
enum { RT_PORT_DOWN_ADMIN = 1, RT_PORT_DOWN_LINK = 2 };
/** Is P4 port @p port live (not taken down by the operator, link not reported down)? Ports
 *  outside 0..P4DP_PORT_DROP-1 are never live. Any control thread (relaxed load). */
static inline bool rt_port_live(const struct p4dp_runtime *rt, uint32_t port)
{
	return port < P4DP_PORT_DROP && __atomic_load_n(&rt->port_down[port], __ATOMIC_RELAXED) == 0;
}
/** Poll the link status of the started ports (rte_eth_link_get_nowait) and apply changes.
 *  Context: the control thread running p4dp_runtime_run (worker.c). */
void rt_liveness_links_poll(struct p4dp_runtime *rt);
/** The run stopped: links count as up again; apply the change. Context: as above. */
void rt_liveness_links_clear(struct p4dp_runtime *rt);
/* externs.c: rebuild every multicast list and clone session from its chains (rt->lock taken) */
int rt_pre_liveness_apply(struct p4dp_runtime *rt);
/* actprof.c: rebuild every selector group that has a watched member (profile mutexes taken) */
int rt_actprof_liveness_apply(struct p4dp_runtime *rt);

/* ctl.c */
int rt_tables_create(struct p4dp_runtime *rt);
void rt_tables_free(struct p4dp_runtime *rt);
int rt_entry_index(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e, uint32_t *index);

/** Add/modify an entry with the match of @p e and the given native action/data (no action
 *  validation; used for indirect tables by actprof.c). Errors as p4dp_runtime_table_entry_add. */
int rt_entry_write_native(struct p4dp_runtime *rt, uint32_t table, const struct p4dp_rt_entry *e, uint32_t action,
			  const uint8_t *data, int modify);
/** Pass @p action with native @p data (a layout of table @p table's actions) to @p cb as an entry
 *  with n_keys 0. @return cb's value; -ENOMEM. */
int rt_emit_action(struct p4dp_runtime *rt, uint32_t table, uint32_t action, const uint8_t *data, p4dp_rt_entry_cb cb,
		   void *arg);

/* dpwrite.c */
/** p4dp_table_dp_add_seen that also gives the new entry's row (struct p4dp_entry.index) in
 *  *@p row (if not NULL) on success, from the insert itself (no second lookup). Same context,
 *  thread safety and return values. */
int rt_dp_add_row(struct p4dp_ctx *ctx, uint32_t table, const void *key, uint32_t action, const void *data,
		  uint32_t expire_profile, uint64_t *seen, uint32_t *row);

/* actprof.c */
int rt_actprof_create(struct p4dp_runtime *rt);
void rt_actprof_free(struct p4dp_runtime *rt);

/* rtc_table.c */
/** Create the sweep of every Foreach extern (P4DP_EXT_RTC_FOREACH) and point every worker's
 *  ext slot at it; after rt_externs_create. 0 or -errno (message set). */
int rt_rtc_sweeps_create(struct p4dp_runtime *rt);
/** Free them and clear the ext slots; before rt_externs_free (NULL slots are skipped). */
void rt_rtc_sweeps_free(struct p4dp_runtime *rt);

/* externs.c */
int rt_externs_create(struct p4dp_runtime *rt);
void rt_externs_free(struct p4dp_runtime *rt);
/** Reset the direct counter/meter cells of entry slot @p index of @p table (UINT32_MAX: all). */
void rt_direct_reset_index(struct p4dp_runtime *rt, uint32_t table, uint32_t index);
/* The cell of a table's direct counter and meter that its default entry (a miss) uses: the one
 * after the entries' slots (the table's capacity). */
uint32_t rt_direct_default_cell(const struct p4dp_runtime *rt, uint32_t table);
/** 0 if meter @p ext (a meter or direct meter) takes @p cfg (NULL: unconfigure) by its type;
 *  else -EINVAL with the reason (rt.h struct p4dp_meter_config). */
int rt_meter_cfg_check(const struct p4dp_runtime *rt, uint32_t ext, const struct p4dp_meter_config *cfg);
/** Number of cells of extern @p x as allocated by the runtime. */
uint32_t rt_ext_cells(const struct p4dp_runtime *rt, uint32_t x);

/* batch.c: the barrier of p4dp_runtime_batch_run (see the file comment there) */
enum { RT_PARK_OFF = 0, RT_PARK_RUN = 1, RT_PARK_PARKED = 2 };
enum { RT_GATE_OPEN = 0, RT_GATE_REQUEST = 1, RT_GATE_CLOSED = 2 };
/** Software dispatch: process the packets in the worker's ring; returns how many (worker.c). */
typedef unsigned (*rt_batch_drain_fn)(struct rt_worker *w);
/** A worker enters its loop (OFF -> RUN); parks at once if a batch is requested or running.
 *  @p drain: NULL unless software dispatch. Context: the worker. */
void rt_batch_online(struct rt_worker *w, rt_batch_drain_fn drain);
/** The worker saw the gate not OPEN at its loop boundary (it holds no entry and runs no action):
 *  wait until the batch is done, reporting RCU quiescence meanwhile. Context: the worker. */
void rt_batch_park(struct rt_worker *w, rt_batch_drain_fn drain);
/** The worker leaves its loop (-> OFF). Context: the worker. */
void rt_batch_offline(struct rt_worker *w);
/** Has a batch asked the workers to park? perf: one relaxed load per loop iteration; a stale 0
 *  only delays parking by an iteration (the control thread waits for it, see batch.c). */
static inline bool rt_batch_requested(const struct p4dp_runtime *rt)
{
	return __atomic_load_n(&rt->batch_gate, __ATOMIC_RELAXED) != RT_GATE_OPEN;
}

/** Worker @p w's table hit counters (@p misses 0) or miss counters (1), indexed by table: inside
 *  the worker's own cache lines (struct p4dp_runtime, hits). Any thread. */
static inline uint64_t *rt_counters_of(const struct p4dp_runtime *rt, uint32_t w, int misses)
{
	return rt->hits + (size_t)w * rt->cnt_stride + (misses ? rt->cnt_stride / 2 : 0);
}

/* pkt.c / worker.c / port.c */
int rt_inject_append(struct rt_worker *w, uint32_t port, const uint8_t *data, uint32_t len, bool copy);
void rt_port_tx(struct p4dp_runtime *rt, struct rt_worker *acct, uint32_t slot, uint16_t queue,
		struct rte_mbuf **m, uint32_t n);
void rt_ports_free(struct p4dp_runtime *rt);
uint64_t rt_now_ns(struct p4dp_runtime *rt);

/** Loop iterations between reads of the clock while a worker is saturated (worker.c). */
#define RT_CLOCK_EVERY 4u
/** Whether a worker reads the clock this loop iteration: always, unless every poll of the previous
 *  iteration returned a full burst (@p saturated); then when @p since iterations have passed
 *  since the last read and since >= RT_CLOCK_EVERY. */
bool rt_clock_due(bool saturated, uint32_t since);
/** Run the expiry scan of every idle-timeout table at @p now (control thread). */
int rt_idle_scan(struct p4dp_runtime *rt, uint64_t now);
void rt_idle_free(struct p4dp_runtime *rt);
/** The packet a background iteration builds in @p buf (RT_INJECT_HEADROOM + RT_INJECT_TAILROOM
 *  bytes): empty, with the headroom and tailroom of an injected packet, going nowhere yet. */
static inline struct p4dp_pkt rt_bg_pkt(uint8_t *buf)
{
	return (struct p4dp_pkt){
		.data = buf + RT_INJECT_HEADROOM,
		.len = 0,
		.headroom = RT_INJECT_HEADROOM,
		.tailroom = RT_INJECT_TAILROOM,
		.in_port = P4DP_PORT_DROP,
		.out_port = P4DP_PORT_DROP,
		.priv = NULL,
	};
}

/** rtc_bg.c: the EAL lcore function of background thread @p arg (a struct rt_worker *, slot
 *  run_workers + i of rt->workers): runs its share of the program's background pipelines until
 *  stop_workers (see the file comment there). */
int rt_bg_main(void *arg);
/** Software dispatch: owner worker of a frame (flow hash). */
uint32_t rt_flow_owner(const struct p4dp_runtime *rt, const uint8_t *d, uint32_t len, uint32_t n_workers,
		       uint32_t self);

#endif
