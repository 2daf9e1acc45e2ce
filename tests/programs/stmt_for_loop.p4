// P4_16 `for` loops: C-style with a run-time bound, nested, `break`, `continue`, a call in the
// condition, `for ... in lo .. hi` (up to the largest value of the type) and `for ... in` a
// header stack.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8>  n;
    bit<32> sum;      // 1 + 2 + ... + n
    bit<16> product;  // n * n by nested loops
    bit<8>  brk;      // iterations before `break` at i == 5 (i < n)
    bit<16> odd;      // sum of the odd i < n (`continue` on even)
    bit<16> range;    // sum of i in 250 .. 255 (bit<8>, ends at the largest value)
    bit<8>  called;   // loop whose condition calls a function: counts below n
    bit<16> stack;    // sum of the `v` of the three stack elements
}

header elem_t {
    bit<8> v;
}

struct headers_t {
    data_t    data;
    elem_t[3] s;
}

struct metadata_t {
}

bit<8> limit(in bit<8> n) {
    return n >> 1;
}

parser ParserImpl(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.data);
        packet.extract(hdr.s.next);
        packet.extract(hdr.s.next);
        packet.extract(hdr.s.next);
        transition accept;
    }
}

control VerifyChecksumImpl(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control ingress(inout headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    action sums() {
        hdr.data.sum = 0;
        for (bit<8> i = 1; i <= hdr.data.n && i != 0; i = i + 1) {
            hdr.data.sum = hdr.data.sum + (bit<32>)i;
        }
    }
    apply {
        sums();
        hdr.data.product = 0;
        for (bit<8> i = 0; i < hdr.data.n; i = i + 1) {
            for (bit<8> j = 0; j < hdr.data.n; j = j + 1) {
                hdr.data.product = hdr.data.product + 1;
            }
        }
        hdr.data.brk = 0;
        for (bit<8> i = 0; i < hdr.data.n; i = i + 1) {
            if (i == 5) {
                break;
            }
            hdr.data.brk = hdr.data.brk + 1;
        }
        hdr.data.odd = 0;
        for (bit<8> i = 0; i < hdr.data.n; i = i + 1) {
            if (i[0:0] == 0) {
                continue;
            }
            hdr.data.odd = hdr.data.odd + (bit<16>)i;
        }
        hdr.data.range = 0;
        for (bit<8> k in 250 .. 255) {
            hdr.data.range = hdr.data.range + (bit<16>)k;
        }
        bit<8> c = 0;
        for (; c < limit(hdr.data.n); ) {
            c = c + 1;
        }
        hdr.data.called = c;
        hdr.data.stack = 0;
        for (elem_t e in hdr.s) {
            hdr.data.stack = hdr.data.stack + (bit<16>)e.v;
        }
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
        packet.emit(hdr.data);
        packet.emit(hdr.s);
    }
}

V1Switch(ParserImpl(), VerifyChecksumImpl(), ingress(), egress(),
         ComputeChecksumImpl(), DeparserImpl()) main;
