// expect: error E0413: resolving s69 goes through more than 64 nested type declarations (the limit)
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<32> b;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
    bit<8> x;
}
struct s0 { bit<8> f; }
struct s1 { s0 f; }
struct s2 { s1 f; }
struct s3 { s2 f; }
struct s4 { s3 f; }
struct s5 { s4 f; }
struct s6 { s5 f; }
struct s7 { s6 f; }
struct s8 { s7 f; }
struct s9 { s8 f; }
struct s10 { s9 f; }
struct s11 { s10 f; }
struct s12 { s11 f; }
struct s13 { s12 f; }
struct s14 { s13 f; }
struct s15 { s14 f; }
struct s16 { s15 f; }
struct s17 { s16 f; }
struct s18 { s17 f; }
struct s19 { s18 f; }
struct s20 { s19 f; }
struct s21 { s20 f; }
struct s22 { s21 f; }
struct s23 { s22 f; }
struct s24 { s23 f; }
struct s25 { s24 f; }
struct s26 { s25 f; }
struct s27 { s26 f; }
struct s28 { s27 f; }
struct s29 { s28 f; }
struct s30 { s29 f; }
struct s31 { s30 f; }
struct s32 { s31 f; }
struct s33 { s32 f; }
struct s34 { s33 f; }
struct s35 { s34 f; }
struct s36 { s35 f; }
struct s37 { s36 f; }
struct s38 { s37 f; }
struct s39 { s38 f; }
struct s40 { s39 f; }
struct s41 { s40 f; }
struct s42 { s41 f; }
struct s43 { s42 f; }
struct s44 { s43 f; }
struct s45 { s44 f; }
struct s46 { s45 f; }
struct s47 { s46 f; }
struct s48 { s47 f; }
struct s49 { s48 f; }
struct s50 { s49 f; }
struct s51 { s50 f; }
struct s52 { s51 f; }
struct s53 { s52 f; }
struct s54 { s53 f; }
struct s55 { s54 f; }
struct s56 { s55 f; }
struct s57 { s56 f; }
struct s58 { s57 f; }
struct s59 { s58 f; }
struct s60 { s59 f; }
struct s61 { s60 f; }
struct s62 { s61 f; }
struct s63 { s62 f; }
struct s64 { s63 f; }
struct s65 { s64 f; }
struct s66 { s65 f; }
struct s67 { s66 f; }
struct s68 { s67 f; }
struct s69 { s68 f; }

parser P(packet_in packet, out headers_t hdr, inout metadata_t meta,
         inout standard_metadata_t sm) {
    state start {
        packet.extract(hdr.h);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control Ing(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {

    apply {
        s69 v;
    }
}

control Eg(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply { }
}

control CC(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control D(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.h);
    }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;
