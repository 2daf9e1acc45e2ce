// push_front/pop_front on a header stack in a control: elements shift and
// validity follows; only valid elements are emitted.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<32> f1;
    bit<32> f2;
    bit<8>  b1;
    bit<8>  b2;
    bit<16> h1;
}

header item_t {
    bit<8> v;
}

struct headers_t {
    data_t    data;
    item_t[3] st;
}

struct metadata_t {
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        packet.extract(hdr.st[0]);
        packet.extract(hdr.st[1]);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply {  }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        if (hdr.data.b1 == 1) {
            hdr.st.push_front(1);
            hdr.st[0].setValid();
            hdr.st[0].v = 0x99;
        } else if (hdr.data.b1 == 2) {
            hdr.st.pop_front(1);
        } else if (hdr.data.b1 == 3) {
            hdr.st.push_front(2);
        } else {
            hdr.st[2].setInvalid();
        }
        hdr.data.b2 = (bit<8>)hdr.st.size;
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
        packet.emit(hdr.st);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;
