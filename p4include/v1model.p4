/*
 * v1model.p4 - the v1model architecture (BMv2 simple_switch) for p4dp.
 *
 * Written for p4dp from the public description of the v1model architecture.
 * Names, field widths and signatures are those of the public v1model so that
 * existing programs compile unchanged. Behaviour notes (what p4dp does at run
 * time) are in docs/v1model.md.
 *
 * Pipeline:  Parser -> VerifyChecksum -> Ingress -> (traffic manager)
 *            -> Egress -> ComputeChecksum -> Deparser
 */

#ifndef _V1_MODEL_P4_
#define _V1_MODEL_P4_

#include "core.p4"

/* Version of this architecture description, as a date YYYYMMDD. Programs may
 * define V1MODEL_VERSION before including this file to select an older
 * interface: before 20200408, counter/meter/register indices are bit<32>
 * rather than a type parameter. */
#ifndef V1MODEL_VERSION
#define V1MODEL_VERSION 20200408
#endif

const bit<32> __v1model_version = V1MODEL_VERSION;

/* Match kinds added by v1model. */
match_kind {
    range,     // lo..hi inclusive
    optional,  // exact value or wildcard
    selector   // key of an action selector
}

/* Metadata that the architecture provides to every packet. All fields start
 * at 0 except ingress_port, packet_length, instance_type and
 * ingress_global_timestamp, which the target sets. */
@metadata @name("standard_metadata")
struct standard_metadata_t {
    bit<9>  ingress_port;     // port the packet arrived on
    bit<9>  egress_spec;      // set in ingress: output port; 511 drops
    bit<9>  egress_port;      // in egress: the port the packet leaves on
    bit<32> clone_spec;       // deprecated, from older v1model versions (kept so old programs
                              // compile); nothing in p4dp reads or writes it
    bit<32> instance_type;    // 0 normal, 1 I2E clone, 2 E2E clone, 4 recirc, 5 replica, 6 resubmit
    bit<1>  drop;             // deprecated, from older v1model versions (kept so old programs
                              // compile); nothing in p4dp reads it: use mark_to_drop()
    bit<32> packet_length;    // bytes, for the packet as received
    @alias("queueing_metadata.enq_timestamp")    bit<32> enq_timestamp;
    @alias("queueing_metadata.enq_qdepth")       bit<19> enq_qdepth;
    @alias("queueing_metadata.deq_timedelta")    bit<32> deq_timedelta;
    @alias("queueing_metadata.deq_qdepth")       bit<19> deq_qdepth;
    @alias("intrinsic_metadata.ingress_global_timestamp") bit<48> ingress_global_timestamp;
    @alias("intrinsic_metadata.egress_global_timestamp")  bit<48> egress_global_timestamp;
    @alias("intrinsic_metadata.mcast_grp")       bit<16> mcast_grp;   // != 0: multicast group
    @alias("intrinsic_metadata.egress_rid")      bit<16> egress_rid;  // replication id of a copy
    bit<1>  checksum_error;   // set by verify_checksum on a mismatch
    error   parser_error;     // error the parser stopped with (NoError if none)
    @alias("intrinsic_metadata.priority")        bit<3>  priority;
}

enum CounterType {
    packets,
    bytes,
    packets_and_bytes
}

enum MeterType {
    packets,
    bytes
}

/* An array of counters, indexed from 0 to size-1. */
#if V1MODEL_VERSION >= 20200408
extern counter<I> {
    counter(bit<32> size, CounterType type);
    void count(in I index);
}
#else
extern counter {
    counter(bit<32> size, CounterType type);
    void count(in bit<32> index);
}
#endif

/* One counter per entry of the table it is attached to (table property
 * `counters`). count() counts the matched entry. */
extern direct_counter {
    direct_counter(CounterType type);
    void count();
}

/* An array of two-rate three-colour meters (RFC 2698). The result is the
 * colour: 0 GREEN, 1 YELLOW, 2 RED. An unconfigured meter returns GREEN. */
#if V1MODEL_VERSION >= 20200408
extern meter<I> {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in I index, out T result);
}
#else
extern meter {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in bit<32> index, out T result);
}
#endif

/* One meter per entry of the table it is attached to (table property
 * `meters`). read() gives the colour for the matched entry. */
extern direct_meter<T> {
    direct_meter(MeterType type);
    void read(out T result);
}

/* An array of size cells of type T, initially 0. */
#if V1MODEL_VERSION >= 20200408
extern register<T, I> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in I index);
    void write(in I index, in T value);
}
#else
extern register<T> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in bit<32> index);
    void write(in bit<32> index, in T value);
}
#endif

/* Table implementation (`implementation = ...`): entries hold member
 * references into a shared set of action invocations. */
extern action_profile {
    action_profile(bit<32> size);
}

/* result = a value in [lo, hi]. */
extern void random<T>(out T result, in T lo, in T hi);

/* Send data to the control plane; receiver is an identifier for the
 * learning receiver. */
extern void digest<T>(in bit<32> receiver, in T data);

enum HashAlgorithm {
    crc32,          // standard CRC-32 (reflected, init/xorout 0xFFFFFFFF)
    crc32_custom,
    crc16,          // CRC-16/ARC (poly 0x8005, reflected, init 0)
    crc16_custom,
    random,
    identity,       // the data itself, truncated
    csum16,         // 16-bit ones' complement Internet checksum
    xor16           // xor of the data's 16-bit words
}

/* Set egress_spec to the drop port (511). The form without arguments is kept
 * for old programs. */
@deprecated("Please use mark_to_drop(standard_metadata) instead.")
extern void mark_to_drop();

@pure
extern void mark_to_drop(inout standard_metadata_t standard_metadata);

/* result = base + (H(data) mod max) when max > 0, base when max == 0.
 * data is usually a list/tuple of fields, hashed as their concatenation. */
@pure
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base,
                             in D data, in M max);

/* Table implementation choosing one member of a group by a hash of the
 * `selector` keys. */
extern action_selector {
    action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);
}

enum CloneType {
    I2E,  // ingress to egress
    E2E   // egress to egress
}

@deprecated("Please use verify_checksum/update_checksum instead.")
extern Checksum16 {
    Checksum16();
    bit<16> get<D>(in D data);
}

/* If condition is true, compute the checksum of data with algo and set
 * standard_metadata.checksum_error to 1 if it differs from checksum.
 * Only allowed in the VerifyChecksum control. */
extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum,
                                  HashAlgorithm algo);

/* If condition is true, checksum = the checksum of data with algo.
 * Only allowed in the ComputeChecksum control. */
@pure
extern void update_checksum<T, O>(in bool condition, in T data,
                                  inout O checksum, HashAlgorithm algo);

/* As above, with the packet payload (the bytes after the last parsed header)
 * appended to data. */
extern void verify_checksum_with_payload<T, O>(in bool condition, in T data,
                                               in O checksum,
                                               HashAlgorithm algo);

@noSideEffects
extern void update_checksum_with_payload<T, O>(in bool condition, in T data,
                                               inout O checksum,
                                               HashAlgorithm algo);

/* Clone the packet to clone session `session`. I2E clones are made at the
 * end of ingress, E2E clones at the end of egress. */
extern void clone(in CloneType type, in bit<32> session);

/* Re-run ingress on the original packet; the fields of data are preserved. */
@deprecated("Please use 'resubmit_preserving_field_list' instead")
extern void resubmit<T>(in T data);

/* Re-run ingress on the original packet, preserving user metadata fields
 * annotated @field_list(index). */
extern void resubmit_preserving_field_list(bit<8> index);

/* Send the deparsed packet back to the parser after egress. */
@deprecated("Please use 'recirculate_preserving_field_list' instead")
extern void recirculate<T>(in T data);

extern void recirculate_preserving_field_list(bit<8> index);

@deprecated("Please use 'clone_preserving_field_list' instead")
extern void clone3<T>(in CloneType type, in bit<32> session, in T data);

extern void clone_preserving_field_list(in CloneType type, in bit<32> session,
                                        bit<8> index);

/* Truncate the output packet to at most length bytes. */
extern void truncate(in bit<32> length);

/* Check check at run time; a failure stops the target (debug aid). */
extern void assert(in bool check);

/* Like assert for run time; tools may take it as an assumption. */
extern void assume(in bool check);

/* Log a message; "{}" in msg is replaced by the fields of data in order. */
extern void log_msg(string msg);
extern void log_msg<T>(string msg, in T data);

/* The programmable blocks of the architecture. */
parser Parser<H, M>(packet_in b,
                    out H parsedHdr,
                    inout M meta,
                    inout standard_metadata_t standard_metadata);

control VerifyChecksum<H, M>(inout H hdr,
                             inout M meta);

@pipeline
control Ingress<H, M>(inout H hdr,
                      inout M meta,
                      inout standard_metadata_t standard_metadata);

@pipeline
control Egress<H, M>(inout H hdr,
                     inout M meta,
                     inout standard_metadata_t standard_metadata);

control ComputeChecksum<H, M>(inout H hdr,
                              inout M meta);

@deparser
control Deparser<H>(packet_out b, in H hdr);

package V1Switch<H, M>(Parser<H, M> p,
                       VerifyChecksum<H, M> vr,
                       Ingress<H, M> ig,
                       Egress<H, M> eg,
                       ComputeChecksum<H, M> ck,
                       Deparser<H> dep);

#endif  /* _V1_MODEL_P4_ */
