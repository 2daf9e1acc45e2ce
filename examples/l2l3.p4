// l2l3.p4 - a small v1model L2/L3 forwarder, the example bundled with p4dp.
//
//   * Ethernet / IPv4 / IPv6 / TCP / UDP parsing.
//   * IPv4 packets are routed: `ipv4_lpm` (longest prefix match on the
//     destination) picks the next-hop MAC and output port; TTL is decremented
//     and the header checksum recomputed. TTL <= 1 or no route: drop.
//   * All other packets are bridged: `l2_fwd` (exact on the destination MAC)
//     picks the output port; unknown destinations are dropped.
//   * `acl` (ternary, priorities) can deny routed IPv4 packets by source,
//     destination, protocol and L4 destination port.
//   * Per-port receive/transmit counters and a per-entry ACL hit counter.
//   * Malformed (truncated) packets are counted and dropped.
//
// Table entries for it: examples/l2l3.entries. Traffic: scripts/gen_pcap.py.

#include <core.p4>
#include <v1model.p4>

typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;
typedef bit<9>  port_t;

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<16> ETHERTYPE_IPV6 = 0x86dd;
const bit<8>  PROTO_TCP = 6;
const bit<8>  PROTO_UDP = 17;

header ethernet_t {
    mac_addr_t dstAddr;
    mac_addr_t srcAddr;
    bit<16>    etherType;
}

header ipv4_t {
    bit<4>      version;
    bit<4>      ihl;
    bit<8>      diffserv;
    bit<16>     totalLen;
    bit<16>     identification;
    bit<3>      flags;
    bit<13>     fragOffset;
    bit<8>      ttl;
    bit<8>      protocol;
    bit<16>     hdrChecksum;
    ipv4_addr_t srcAddr;
    ipv4_addr_t dstAddr;
}

header ipv6_t {
    bit<4>   version;
    bit<8>   trafficClass;
    bit<20>  flowLabel;
    bit<16>  payloadLen;
    bit<8>   nextHdr;
    bit<8>   hopLimit;
    bit<128> srcAddr;
    bit<128> dstAddr;
}

header tcp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<32> seqNo;
    bit<32> ackNo;
    bit<4>  dataOffset;
    bit<4>  res;
    bit<8>  flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgentPtr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> len;
    bit<16> checksum;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    ipv6_t     ipv6;
    tcp_t      tcp;
    udp_t      udp;
}

struct metadata_t {
    bit<16> l4_dport;   // TCP/UDP destination port, 0 if none
}

parser L2L3Parser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            PROTO_TCP: parse_tcp;
            PROTO_UDP: parse_udp;
            default: accept;
        }
    }

    state parse_ipv6 {
        packet.extract(hdr.ipv6);
        transition select(hdr.ipv6.nextHdr) {
            PROTO_TCP: parse_tcp;
            PROTO_UDP: parse_udp;
            default: accept;
        }
    }

    state parse_tcp {
        packet.extract(hdr.tcp);
        meta.l4_dport = hdr.tcp.dstPort;
        transition accept;
    }

    state parse_udp {
        packet.extract(hdr.udp);
        meta.l4_dport = hdr.udp.dstPort;
        transition accept;
    }
}

control L2L3VerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control L2L3Ingress(inout headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
    counter(512, CounterType.packets_and_bytes) port_rx;
    counter(1, CounterType.packets) malformed;
    direct_counter(CounterType.packets) acl_hits;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    // ---- L2 bridging
    action l2_forward(port_t port) {
        standard_metadata.egress_spec = port;
    }

    table l2_fwd {
        key = {
            hdr.ethernet.dstAddr: exact;
        }
        actions = {
            l2_forward;
            drop;
        }
        default_action = drop();
        size = 4096;
    }

    // ---- L3 routing
    action set_nhop(mac_addr_t dmac, port_t port) {
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dmac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        standard_metadata.egress_spec = port;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dstAddr: lpm;
        }
        actions = {
            set_nhop;
            drop;
        }
        default_action = drop();
        size = 1024;
    }

    // ---- ACL
    action permit() {
    }

    action deny() {
        mark_to_drop(standard_metadata);
    }

    table acl {
        key = {
            hdr.ipv4.srcAddr:  ternary;
            hdr.ipv4.dstAddr:  ternary;
            hdr.ipv4.protocol: ternary;
            meta.l4_dport:     ternary;
        }
        actions = {
            permit;
            deny;
        }
        default_action = permit();
        counters = acl_hits;
        size = 256;
    }

    apply {
        port_rx.count((bit<32>)standard_metadata.ingress_port);
        if (standard_metadata.parser_error != error.NoError) {
            malformed.count(32w0);
            drop();
            return;
        }
        if (hdr.ipv4.isValid()) {
            if (hdr.ipv4.ttl <= 1) {
                drop();
                return;
            }
            switch (ipv4_lpm.apply().action_run) {
                set_nhop: {
                    acl.apply();
                }
            }
        } else {
            l2_fwd.apply();
        }
    }
}

control L2L3Egress(inout headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) {
    counter(512, CounterType.packets_and_bytes) port_tx;

    apply {
        port_tx.count((bit<32>)standard_metadata.egress_port);
    }
}

control L2L3ComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset,
              hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control L2L3Deparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.ipv6);
        packet.emit(hdr.tcp);
        packet.emit(hdr.udp);
    }
}

V1Switch(L2L3Parser(), L2L3VerifyChecksum(), L2L3Ingress(), L2L3Egress(),
         L2L3ComputeChecksum(), L2L3Deparser()) main;
