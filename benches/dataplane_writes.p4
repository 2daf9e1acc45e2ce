// p4dp bench: every packet reads and, unless READ_ONLY is defined, rewrites
// the entry of an exact table that its IPv4 destination matches. The entry's action data holds
// a 32-bit counter; the read-write action takes it as an `@__ref` parameter, copies its old value
// into the packet and stores value + 1 (the pointer method); the read-only action copies it into
// the packet and leaves the entry alone. Variants, chosen with -D:
//   READ_ONLY   the read-only reference
//   DYNAMIC     @storage("dynamic") (default: @storage("static"))
//   LOCKED      @entry_lock on the table
//   TABLE_SIZE  the table's size (default 1024)
// Used by `p4dp bench --suite dataplane-writes` with TABLE_SIZE entries installed (keys
// 10.0.0.0 ..): the benchmark of Simon et al., "High-Performance Match-Action Table Updates from
// within Programmable Software Data Planes" (ANCS '21).
#include <core.p4>
#include <v1model.p4>

#ifndef TABLE_SIZE
#define TABLE_SIZE 1024
#endif

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> len;
    bit<16> checksum;
}

// The first payload word: the entry's value as the packet saw it.
header value_t {
    bit<32> value;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
    value_t    val;
}

struct meta_t { }

parser BenchParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            17: parse_udp;
            default: accept;
        }
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        pkt.extract(hdr.val);
        transition accept;
    }
}

control BenchVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control BenchIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
#ifdef READ_ONLY
    action access(bit<32> value, bit<9> port) {
        hdr.val.value = value;
        sm.egress_spec = port;
    }
#else
    action access(@__ref bit<32> value, bit<9> port) {
        hdr.val.value = value;
        value = value + 1;
        sm.egress_spec = port;
    }
#endif
    action drop() {
        mark_to_drop(sm);
    }

#ifdef LOCKED
    @entry_lock
#endif
#ifdef DYNAMIC
    @storage("dynamic")
#else
    @storage("static")
#endif
    table entries {
        key = { hdr.ipv4.dstAddr : exact; }
        actions = { access; drop; }
        default_action = drop();
        size = TABLE_SIZE;
    }

    apply {
        if (hdr.val.isValid()) {
            entries.apply();
        } else {
            drop();
        }
    }
}

control BenchEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control BenchCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control BenchDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.val);
    }
}

V1Switch(BenchParser(), BenchVerify(), BenchIngress(), BenchEgress(), BenchCompute(), BenchDeparser()) main;
