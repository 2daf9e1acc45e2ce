// A metadata struct of 2^24 bytes built by doubling (s1 holds two s0, s2 two s1, ...): each
// declaration is small, but the per-packet value would not fit a worker's stack, and gcc takes
// unbounded time on such types. The back end refuses the first type above its limit.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> f; }
struct s0 { bit<8> a; }
struct s1 { s0 a; s0 b; }
struct s2 { s1 a; s1 b; }
struct s3 { s2 a; s2 b; }
struct s4 { s3 a; s3 b; }
struct s5 { s4 a; s4 b; }
struct s6 { s5 a; s5 b; }
struct s7 { s6 a; s6 b; }
struct s8 { s7 a; s7 b; }
struct s9 { s8 a; s8 b; }
struct s10 { s9 a; s9 b; }
struct s11 { s10 a; s10 b; }
struct s12 { s11 a; s11 b; }
struct s13 { s12 a; s12 b; }
struct s14 { s13 a; s13 b; }
struct s15 { s14 a; s14 b; }
struct s16 { s15 a; s15 b; }
struct s17 { s16 a; s16 b; }
struct s18 { s17 a; s17 b; }
struct s19 { s18 a; s18 b; }
struct s20 { s19 a; s19 b; }
struct s21 { s20 a; s20 b; }
struct s22 { s21 a; s21 b; }
struct s23 { s22 a; s22 b; }
struct s24 { s23 a; s23 b; }
struct headers_t { h_t h; }
struct meta_t { s24 big; }
parser P(packet_in pk, out headers_t hd, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hd.h); transition accept; }
}
control V(inout headers_t hd, inout meta_t m) { apply {} }
control I(inout headers_t hd, inout meta_t m, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }
control E(inout headers_t hd, inout meta_t m, inout standard_metadata_t sm) { apply {} }
control C(inout headers_t hd, inout meta_t m) { apply {} }
control D(packet_out pk, in headers_t hd) { apply { pk.emit(hd.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
