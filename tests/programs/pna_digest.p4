// PNA Digest: the main control packs a struct of the packet's IPv4 source address and the port
// it was sent to (a header field and a metadata field, 48 bits in all) into digest `learn` for
// every routed packet; the packet itself goes on (the STF runner does not read digests: the test
// is that the generated pack compiles and runs). Otherwise pna_basic's forwarding.
#include <core.p4>
#include <pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
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

struct headers_t {
    ethernet_t eth;
    ipv4_t     ipv4;
}

struct meta_t {
    bit<32> port;
}

struct learn_t {
    bit<32> src;
    bit<16> port;
}

parser MainParserImpl(packet_in pkt, out headers_t hdr, inout meta_t meta,
                      in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etherType) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control PreControlImpl(in headers_t hdr, inout meta_t meta,
                       in pna_pre_input_metadata_t istd,
                       inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control MainControlImpl(inout headers_t hdr, inout meta_t meta,
                        in pna_main_input_metadata_t istd,
                        inout pna_main_output_metadata_t ostd) {
    Counter<bit<32>, bit<32>>(8, PNA_CounterType_t.PACKETS_AND_BYTES) port_count;
    Register<bit<32>, bit<32>>(8) seen;
    InternetChecksum() ck;
    Hash<bit<16>>(PNA_HashAlgorithm_t.CRC16) h;

    action fwd(PortId_t port) {
        send_to_port(port);
        meta.port = (bit<32>)port;
    }
    action drop() {
        drop_packet();
    }
    table route {
        key = { hdr.ipv4.dstAddr : exact; }
        actions = { fwd; drop; }
        const entries = {
            0x0a000001 : fwd((PortId_t)3);
        }
        default_action = drop();
    }
    apply {
        if (hdr.ipv4.isValid()) {
            route.apply();
            ck.set_state(~hdr.ipv4.hdrChecksum);
            ck.subtract({hdr.ipv4.ttl, hdr.ipv4.protocol});
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            ck.add({hdr.ipv4.ttl, hdr.ipv4.protocol});
            hdr.ipv4.hdrChecksum = ck.get();
            port_count.count(meta.port);
            bit<32> n = seen.read(meta.port);
            seen.write(meta.port, n + 1);
            hdr.eth.src[15:0] = h.get_hash({hdr.ipv4.srcAddr, hdr.ipv4.dstAddr});
        } else {
            drop_packet();
        }
    }
}

control MainDeparserImpl(packet_out pkt, in headers_t hdr, in meta_t meta,
                         in pna_main_output_metadata_t ostd) {
    Digest<learn_t>() learn;
    apply {
        if (hdr.ipv4.isValid()) {
            learn.pack({hdr.ipv4.srcAddr, (bit<16>)meta.port});
        }
        pkt.emit(hdr.eth);
        pkt.emit(hdr.ipv4);
    }
}

PNA_NIC(MainParserImpl(), PreControlImpl(), MainControlImpl(), MainDeparserImpl()) main;
