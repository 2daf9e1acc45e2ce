/*
 * pna.p4 - the P4 Portable NIC Architecture (PNA) for p4dp.
 *
 * Written for p4dp from the public PNA specification. Names and signatures
 * follow the specification's pna.p4 so that existing PNA programs compile.
 *
 * Pipeline:  MainParser -> PreControl -> MainControl -> MainDeparser
 * (the pre-control runs on the headers the main parser extracted).
 */

#ifndef __PNA_P4__
#define __PNA_P4__

#include <core.p4>

/* Unsigned widths behind the PNA types. */
typedef bit<32> PortIdUint_t;
typedef bit<32> InterfaceIdUint_t;
typedef bit<32> MulticastGroupUint_t;
typedef bit<16> MirrorSessionIdUint_t;
typedef bit<8>  MirrorSlotIdUint_t;
typedef bit<8>  ClassOfServiceUint_t;
typedef bit<16> PacketLengthUint_t;
typedef bit<16> MulticastInstanceUint_t;
typedef bit<64> TimestampUint_t;
typedef bit<32> FlowIdUint_t;
typedef bit<8>  ExpireTimeProfileIdUint_t;
typedef bit<3>  PassNumberUint_t;
typedef bit<32> SecurityAssocIdUint_t;

@p4runtime_translation("p4.org/pna/v1/PortId_t", 32)
type PortIdUint_t          PortId_t;
@p4runtime_translation("p4.org/pna/v1/InterfaceId_t", 32)
type InterfaceIdUint_t     InterfaceId_t;
@p4runtime_translation("p4.org/pna/v1/MulticastGroup_t", 32)
type MulticastGroupUint_t  MulticastGroup_t;
@p4runtime_translation("p4.org/pna/v1/MirrorSessionId_t", 16)
type MirrorSessionIdUint_t MirrorSessionId_t;
@p4runtime_translation("p4.org/pna/v1/MirrorSlotId_t", 8)
type MirrorSlotIdUint_t    MirrorSlotId_t;
@p4runtime_translation("p4.org/pna/v1/ClassOfService_t", 8)
type ClassOfServiceUint_t  ClassOfService_t;
type PacketLengthUint_t    PacketLength_t;
type MulticastInstanceUint_t MulticastInstance_t;
type TimestampUint_t       Timestamp_t;
type FlowIdUint_t          FlowId_t;
type ExpireTimeProfileIdUint_t ExpireTimeProfileId_t;
type PassNumberUint_t      PassNumber_t;
type SecurityAssocIdUint_t SecurityAssocId_t;

typedef error ParserError_t;

const InterfaceId_t PNA_PORT_CPU = (InterfaceId_t) 32w0xfffffffd;
const MirrorSessionId_t PNA_MIRROR_SESSION_TO_CPU = (MirrorSessionId_t) 16w0;

/* Match kinds added by PNA. */
match_kind {
    range,
    selector,
    optional
}

/* ---- Hashes and checksums ---- */

enum PNA_HashAlgorithm_t {
    TARGET_DEFAULT,
    CRC32,
    CRC32_CUSTOM,
    CRC16,
    CRC16_CUSTOM,
    ONES_COMPLEMENT16,  // the Internet checksum
    IDENTITY
}

extern Hash<O> {
    Hash(PNA_HashAlgorithm_t algo);
    /// The hash of data, truncated to O.
    O get_hash<D>(in D data);
    /// base + (hash(data) mod max).
    O get_hash<T, D>(in T base, in D data, in T max);
}

extern Checksum<W> {
    Checksum(PNA_HashAlgorithm_t hash);
    void clear();
    void update<T>(in T data);
    W    get();
}

/* Incremental Internet checksum (RFC 1624). */
extern InternetChecksum {
    InternetChecksum();
    void clear();
    void add<T>(in T data);
    void subtract<T>(in T data);
    bit<16> get();
    bit<16> get_state();
    void set_state(in bit<16> checksum_state);
}

/* ---- Counters, meters, registers ---- */

enum PNA_CounterType_t {
    PACKETS,
    BYTES,
    PACKETS_AND_BYTES
}

extern Counter<W, S> {
    Counter(bit<32> n_counters, PNA_CounterType_t type);
    void count(in S index);
}

/* Table property pna_direct_counter. */
extern DirectCounter<W> {
    DirectCounter(PNA_CounterType_t type);
    void count();
}

enum PNA_MeterType_t {
    PACKETS,
    BYTES
}

enum PNA_MeterColor_t {
    RED,
    GREEN,
    YELLOW
}

extern Meter<S> {
    Meter(bit<32> n_meters, PNA_MeterType_t type);
    /// Colour-aware.
    PNA_MeterColor_t execute(in S index, in PNA_MeterColor_t color);
    /// Colour-blind.
    PNA_MeterColor_t execute(in S index);
}

/* Table property pna_direct_meter. */
extern DirectMeter {
    DirectMeter(PNA_MeterType_t type);
    PNA_MeterColor_t execute(in PNA_MeterColor_t color);
    PNA_MeterColor_t execute();
}

extern Register<T, S> {
    Register(bit<32> size);
    Register(bit<32> size, T initial_value);
    T    read(in S index);
    void write(in S index, in T value);
}

/* A random value in [min, max] on each read(). */
extern Random<T> {
    Random(T min, T max);
    T read();
}

/* Table implementations (table property pna_implementation). */
extern ActionProfile {
    ActionProfile(bit<32> size);
}

extern ActionSelector {
    ActionSelector(PNA_HashAlgorithm_t algo, bit<32> size, bit<32> outputWidth);
}

/* Send data to the control plane. */
extern Digest<T> {
    Digest();
    void pack(in T data);
}

/* ---- Packet direction and passes ---- */

enum PNA_Direction_t {
    NET_TO_HOST,
    HOST_TO_NET
}

typedef bit<2> PNA_PassType_t;
const PNA_PassType_t PNA_PASS_TYPE_NORMAL          = 0;
const PNA_PassType_t PNA_PASS_TYPE_LOOPEDBACK      = 1;
const PNA_PassType_t PNA_PASS_TYPE_RECIRCULATED    = 2;

/* ---- Data-plane table entry management ---- */

/* Table property pna_idle_timeout. */
enum PNA_IdleTimeout_t {
    NO_TIMEOUT,
    NOTIFY_CONTROL,
    AUTO_DELETE
}

/* Only in the default action of a table with `add_on_miss = true`: insert an
 * entry with the current key, action action_name and parameters
 * action_params, with the given expire-time profile. Returns true if the
 * entry was added, false if it could not be (e.g. the table is full). */
extern bool add_entry<T>(string action_name,
                         in T action_params,
                         in ExpireTimeProfileId_t expire_time_profile_id);

/* Only in an action of a table with pna_idle_timeout: change the matched
 * entry's expire-time profile. */
extern void set_entry_expire_time(
    in ExpireTimeProfileId_t expire_time_profile_id);

/* Only in an action of a table with pna_idle_timeout: restart the matched
 * entry's expiry timer. */
extern void restart_expire_timer();

/* A new flow id. */
extern FlowId_t allocate_flow_id();

/* n2h_value if direction is NET_TO_HOST, h2n_value otherwise. */
extern T SelectByDirection<T>(in PNA_Direction_t direction,
                              in T n2h_value,
                              in T h2n_value);

/* ---- Forwarding decisions (main control only) ---- */

extern void send_to_port(in PortId_t dest_port);
extern void mirror_packet(in MirrorSlotId_t mirror_slot_id,
                          in MirrorSessionId_t mirror_session_id);
extern void drop_packet();
extern void recirculate();

/* ---- Metadata ---- */

struct pna_pre_input_metadata_t {
    PortId_t         input_port;
    ParserError_t    parser_error;
    PNA_Direction_t  direction;
    PassNumber_t     pass;
    bool             loopedback;
}

struct pna_pre_output_metadata_t {
    bool              decrypt;
    SecurityAssocId_t said;
    bit<16>           decrypt_start_offset;
}

struct pna_main_parser_input_metadata_t {
    PNA_Direction_t  direction;
    PassNumber_t     pass;
    bool             loopedback;
    PortId_t         input_port;
}

struct pna_main_input_metadata_t {
    PNA_Direction_t  direction;
    PassNumber_t     pass;
    bool             loopedback;
    Timestamp_t      timestamp;
    ParserError_t    parser_error;
    ClassOfService_t class_of_service;
    PortId_t         input_port;
}

struct pna_main_output_metadata_t {
    ClassOfService_t class_of_service;
}

/* ---- Programmable blocks and the package ---- */

control PreControlT<PH, PM>(in PH pre_hdr,
                            inout PM pre_user_meta,
                            in pna_pre_input_metadata_t istd,
                            inout pna_pre_output_metadata_t ostd);

parser MainParserT<PM, MH, MM>(packet_in pkt,
                               out MH main_hdr,
                               inout MM main_user_meta,
                               in pna_main_parser_input_metadata_t istd);

control MainControlT<PM, MH, MM>(inout MH main_hdr,
                                 inout MM main_user_meta,
                                 in pna_main_input_metadata_t istd,
                                 inout pna_main_output_metadata_t ostd);

control MainDeparserT<MH, MM>(packet_out pkt,
                              in MH main_hdr,
                              in MM main_user_meta,
                              in pna_main_output_metadata_t ostd);

package PNA_NIC<PH, PM, MH, MM>(MainParserT<PM, MH, MM> main_parser,
                                PreControlT<PH, PM> pre_control,
                                MainControlT<PM, MH, MM> main_control,
                                MainDeparserT<MH, MM> main_deparser);

#endif  /* __PNA_P4__ */
