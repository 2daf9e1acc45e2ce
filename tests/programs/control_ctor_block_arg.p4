// Controls as constructor arguments and direct type invocation.
// `Step(k) a; Add3(k) b;` hand the same instance k (with its register) to two controls, which
// apply it: k's state is shared. `Mid.apply(...)` twice in one block makes two instances of Mid
// (allowed: Mid itself has no tables, actions or extern instances), each with its own k.
#define V1MODEL_VERSION 20180101
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
}

control ctl_t(inout bit<8> x);

// Counts its applications in a register and adds the count to x.
control Counter(inout bit<8> x) {
    register<bit<8>>(1) r;
    apply {
        bit<8> v;
        r.read(v, 0);
        v = v + 1;
        r.write(0, v);
        x = x + v;
    }
}

control Twice(inout bit<8> x)(ctl_t c) {
    apply {
        x = x << 1;
        c.apply(x);
    }
}

control Add3(inout bit<8> x)(ctl_t c) {
    apply {
        x = x + 3;
        c.apply(x);
    }
}

control Mid(inout bit<8> x) {
    Counter() k;
    Twice(k) a;
    Add3(k) b;
    apply {
        a.apply(x);
        b.apply(x);
    }
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.h);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        Mid.apply(hdr.h.a);
        Mid.apply(hdr.h.b);
        standard_metadata.egress_spec = 1;
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
        packet.emit(hdr.h);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;
