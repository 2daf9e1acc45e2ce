// A control containing a table, instantiated twice: two distinct tables
// ingress.l1.t and ingress.l2.t with separate entries.
#include <core.p4>
#include <v1model.p4>

control Lookup(inout bit<8> x, in bit<8> k) {
    action set(bit<8> v) {
        x = v;
    }

    table t {
        key = {
            k: exact;
        }
        actions = {
            set;
            NoAction;
        }
        default_action = NoAction();
    }

    apply {
        t.apply();
    }
}

header data_t {
    bit<32> f1;
    bit<32> f2;
    bit<8>  b1;
    bit<8>  b2;
    bit<16> h1;
}

struct headers_t {
    data_t data;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    Lookup() l1;
    Lookup() l2;

    apply {
        l1.apply(hdr.data.b1, hdr.data.f1[7:0]);
        l2.apply(hdr.data.b2, hdr.data.f2[7:0]);
        standard_metadata.egress_spec = 1;
    }
}

control egress(inout headers_t hdr, inout metadata_t meta,
               inout standard_metadata_t standard_metadata) {
    apply { }
}

control ComputeChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control DeparserImpl(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.data);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;
