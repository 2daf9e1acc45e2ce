// Single-rate meters chosen by annotation (docs/p4runtime.md "Meter types"), packets, CIR 1 pkt/s:
// a three-colour one (RFC 2697: CBS 2, EBS 3; tokens overflow from C to E) colours into h1, a
// two-colour one (CBS 2) into b2. GREEN 0, YELLOW 1, RED 2.
#include <core.p4>
#include <v1model.p4>

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
    bit<2> color;
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
    @single_rate_three_color meter(4, MeterType.packets) mt;
    @single_rate_two_color meter(4, MeterType.packets) mt2;
    bit<2> color2;

    apply {
        mt.execute_meter((bit<32>)2, meta.color);
        hdr.data.h1 = (bit<16>)meta.color;
        mt2.execute_meter((bit<32>)1, color2);
        hdr.data.b2 = (bit<8>)color2;
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
