// p4c compatibility: `table t() { ... }` (empty parameter list, warning W0101) and the deprecated
// v1model field `standard_metadata.clone_spec` (read here as a clone session; it is 0 and session
// 0 is not configured, so no copy is made).
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8>  k;
    bit<8>  v;
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
    action set_v(bit<8> v, bit<9> port) {
        hdr.data.v = v;
        standard_metadata.egress_spec = port;
    }
    table t() {
        key = { hdr.data.k : exact; }
        actions = { set_v; NoAction; }
        default_action = NoAction();
    }
    apply {
        clone(CloneType.I2E, standard_metadata.clone_spec);
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
