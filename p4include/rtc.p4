/*
 * rtc.p4 - p4dp's run-to-completion architecture.
 *
 * Written for p4dp from Zheng et al., "When P4 Meets Run-to-completion
 * Architecture" (NSDI '25): the extern names and signatures follow its
 * section 4 and appendices A-C so that programs written as its listings
 * compile with no change beyond what it leaves open (the package, the
 * metadata, how a packet leaves). docs/rtc.md describes the model, each
 * extern, the annotations and the guarantees, and says what p4dp implements
 * so far.
 *
 * Pipelines:
 *   foreground  ForegroundParser -> ForegroundIngress -> ForegroundDeparser,
 *               on every worker core, packets dispatched by flow;
 *   background  BackgroundIngress -> BackgroundDeparser in an endless loop
 *               (no parser, no received packet); headers the ingress makes
 *               valid are emitted and sent where send_to_port says.
 * Extern instances declared at the top level (Queue, Counter, Lock) are
 * shared by every pipeline; a background pipeline's TableOperation or
 * Foreach binds a table of the foreground with @tbl("name").
 */

#ifndef __RTC_P4__
#define __RTC_P4__

#include <core.p4>

typedef bit<32> RtcPort_t;

/* What the foreground pipeline knows about a received packet. */
struct rtc_input_metadata_t {
    RtcPort_t ingress_port;
    bit<64>   timestamp_ns;   /* the run clock (simulated in STF tests) */
}

/* What a background pipeline knows about its iteration. */
struct rtc_background_metadata_t {
    bit<64>   timestamp_ns;
    bit<32>   iteration;      /* iterations of this pipeline before this one */
}

/* Match kinds besides core.p4's exact, ternary and lpm. */
match_kind {
    range,
    optional
}

/* ---- Leaving the pipeline -------------------------------------------------- */

/* Send the packet (foreground) or the packet the deparser builds (background)
 * to a port. Without it a foreground packet is dropped and a background
 * iteration sends nothing. */
extern void send_to_port(in RtcPort_t port);
/* Undo send_to_port. */
extern void drop_packet();

/* ---- Section 4.2: extensions for pipeline packages --------------------------- */

/*
 * A loop. Bound to a table with @tbl("t") and to one loop-body action per
 * action of t with @methods(act0="__for_act0", ...) (or the structured form
 * @methods[act0="__for_act0"]): apply() visits every row of t and calls the
 * body bound to the row's action with the row's key and action data.
 * apply(start, end) visits the rows whose row index is in [start, end).
 * Without @tbl it is a range loop over [start, end) whose body is the action
 * named by @methods(index="body"), called with the index.
 * Loop bodies leave the iteration or the loop with P4's `continue;` and
 * `break;` statements (the paper's continue()/break() are spelled as P4
 * statements: both names are keywords of P4_16).
 */
extern Foreach {
    Foreach();
    void apply();
    void apply(in bit<32> start, in bit<32> end);
}

/* Pause the background pipeline: its next iteration starts no earlier than
 * `value` microseconds / milliseconds after the call. Background only. */
extern Sleep {
    Sleep();
    void us(in bit<32> value);
    void ms(in bit<32> value);
}

/* A bounded queue of messages between pipelines (multi-producer,
 * multi-consumer). T must be a bit<W>, a header or a struct of them. */
extern Queue<T> {
    Queue(bit<32> depth);
    /* false: the queue was full (the message is dropped and counted). */
    bool push(in T value);
    /* false: the queue was empty (value unchanged). */
    bool pop(out T value);
    /* Wait until a message arrives. Background only. */
    bool popWait(out T value);
}

/* ---- Section 4.3: extensions for match-action tables ------------------------- */

/*
 * Table writes from the data plane, bound to a table with @tbl("t"). act is
 * the position of the action in t's `actions` list (0 for the first). Each
 * call is one atomic transaction against every concurrent lookup. A false
 * result is a defined outcome: entryAdd on a full table or of a key that
 * exists (another core may have added it first), entryDel or entryGet of a
 * key that does not exist.
 */
extern TableOperation {
    TableOperation();
    bool entryDel<KEY_T>(in KEY_T k);
    bool entryAdd<KEY_T, DATA_T>(in KEY_T k, in bit<8> act, in DATA_T data);
    bool entryGet<KEY_T, DATA_T>(in KEY_T k, out bit<8> act, out DATA_T data);
}

/* The row index of the entry the last table apply or table operation of this
 * packet (iteration) hit or wrote; stable for the entry's lifetime. */
extern bit<32> lastRowIndex();

/* The received packet's length in bytes (foreground). */
extern bit<32> getPktLength();

/* Table annotations: @linear (the key is the row: a directly indexed table)
 * and @offchip / @offchip(x4) (a table sized for DRAM rather than cache;
 * docs/rtc.md). */

/* ---- Section 4.4: parallel safety ------------------------------------------ */

/* Counters shared by every core; count, get and set are atomic. */
extern Counter {
    Counter(bit<32> size);
    void count(in bit<32> index, in bit<32> value);
    bit<64> get(in bit<32> index);
    void set(in bit<32> index, in bit<64> value);
}

/* `size` test-and-set locks. acquire(idx, true) spins until it holds lock
 * idx; acquire(idx, false) tries once. Both return whether the caller holds
 * it; release returns whether it was held. */
extern Lock {
    Lock(bit<32> size);
    bool acquire(in bit<32> idx, in bool blocking);
    bool release(in bit<32> idx);
}

/* ---- Programmable blocks and the packages ------------------------------------ */

parser ForegroundParser<H, M>(packet_in pkt, out H hdr, inout M meta, in rtc_input_metadata_t istd);
control ForegroundIngress<H, M>(inout H hdr, inout M meta, in rtc_input_metadata_t istd);
control ForegroundDeparser<H, M>(packet_out pkt, in H hdr, in M meta);

control BackgroundIngress<BH, BM>(inout BH hdr, inout BM meta, in rtc_background_metadata_t bstd);
control BackgroundDeparser<BH, BM>(packet_out pkt, in BH hdr, in BM meta);

/* A foreground pipeline only. */
package RTC<H, M>(ForegroundParser<H, M> fg_parser,
                  ForegroundIngress<H, M> fg_ingress,
                  ForegroundDeparser<H, M> fg_deparser);

/* A foreground pipeline and one, two or three background pipelines. */
package RTC_BG1<H, M, BH0, BM0>(ForegroundParser<H, M> fg_parser,
                                ForegroundIngress<H, M> fg_ingress,
                                ForegroundDeparser<H, M> fg_deparser,
                                BackgroundIngress<BH0, BM0> bg0_ingress,
                                BackgroundDeparser<BH0, BM0> bg0_deparser);

package RTC_BG2<H, M, BH0, BM0, BH1, BM1>(ForegroundParser<H, M> fg_parser,
                                          ForegroundIngress<H, M> fg_ingress,
                                          ForegroundDeparser<H, M> fg_deparser,
                                          BackgroundIngress<BH0, BM0> bg0_ingress,
                                          BackgroundDeparser<BH0, BM0> bg0_deparser,
                                          BackgroundIngress<BH1, BM1> bg1_ingress,
                                          BackgroundDeparser<BH1, BM1> bg1_deparser);

package RTC_BG3<H, M, BH0, BM0, BH1, BM1, BH2, BM2>(ForegroundParser<H, M> fg_parser,
                                                    ForegroundIngress<H, M> fg_ingress,
                                                    ForegroundDeparser<H, M> fg_deparser,
                                                    BackgroundIngress<BH0, BM0> bg0_ingress,
                                                    BackgroundDeparser<BH0, BM0> bg0_deparser,
                                                    BackgroundIngress<BH1, BM1> bg1_ingress,
                                                    BackgroundDeparser<BH1, BM1> bg1_deparser,
                                                    BackgroundIngress<BH2, BM2> bg2_ingress,
                                                    BackgroundDeparser<BH2, BM2> bg2_deparser);

#endif  /* __RTC_P4__ */
