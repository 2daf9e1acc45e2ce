// @__ref action parameters (the pointer method of Simon et al.) on v1model: a per-flow packet counter
// and byte accumulator kept in the entries of an exact table. The action reads and writes the
// matched entry's action data in place; the packet carries the new values back out. `n` is
// also passed inout to a function (copy-in/copy-out through the reference) and written
// through a slice. Entries live in static storage (@storage("static")).
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<32> id;
    bit<32> count;
    bit<48> acc;
    bit<16> add;
    bit<8>  low;
}

struct headers_t {
    data_t data;
}

struct metadata_t {
}

void incr(inout bit<32> x) {
    x = x + 1;
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
    action count(@__ref bit<32> n, @__ref bit<48> acc, bit<9> port) {
        incr(n);
        acc = acc + (bit<48>)hdr.data.add;
        hdr.data.count = n;
        hdr.data.acc = acc;
        if (hdr.data.low != 0) {
            n[7:0] = hdr.data.low;      // a slice write lands in the entry too
        }
        standard_metadata.egress_spec = port;
    }

    @storage("static")
    table flows {
        key = {
            hdr.data.id: exact;
        }
        actions = {
            count;
            NoAction;
        }
        default_action = NoAction();
        size = 16;
    }

    apply {
        flows.apply();
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
