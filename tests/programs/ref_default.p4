// @__ref on the default action: `miss` counts misses in the table's default entry (data set by
// `default_action = miss(10)`, replaced by the control plane with setdefault). Hits run `hit`,
// which has a plain (copied) parameter.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8>  key;
    bit<32> count;
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
    apply { }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    action hit(bit<32> v) {
        hdr.data.count = v;
        standard_metadata.egress_spec = 1;
    }
    action miss(@__ref bit<32> misses) {
        misses = misses + 1;
        hdr.data.count = misses;
        standard_metadata.egress_spec = 2;
    }

    table t {
        key = {
            hdr.data.key: exact;
        }
        actions = {
            hit;
            miss;
        }
        default_action = miss(10);
    }

    apply {
        t.apply();
    }
}

control egress(inout headers_t hdr, inout metadata_t meta,
               inout standard_metadata_t standard_metadata) {
    apply { }
}

control ComputeChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control DeparserImpl(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.data);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;
