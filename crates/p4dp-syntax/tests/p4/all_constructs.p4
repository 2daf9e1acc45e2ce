// Exercises every syntactic construct of P4_16 that p4dp-syntax supports.
// Not meant to type-check; only to parse.
error { NoError, PacketTooShort }
match_kind { exact, ternary, lpm, range, optional }
error { Custom }

const bit<8> C8 = 8w5;
const int<4> S4 = 4s3;
const int BIG = 0xFFFF_FFFF_FFFF_FFFF_FFFF;
const bit<16> B = 16w0b1010_1010 + 0o17 + 0d99;
const bool T = true && !false;
const bit<(C8 + 1)> W = 1;
const string s = "hello \"world\"";

typedef bit<48> mac_t;
type bit<32> ip_t;
typedef mac_t[4] macs_t;
typedef tuple<bit<8>, bool> tup_t;
typedef struct S0 { bit<8> a; } S0_t;

@name("eth") header ethernet_t {
    mac_t dst;
    @foo bit<48> src;
    bit<16> etherType;
}
header opts_t { varbit<320> data; }
header_union ip_u { ethernet_t a; opts_t b; }
struct headers_t {
    ethernet_t eth;
    ethernet_t[4] stack;
    ip_u u;
}
struct Generic<T> { T field; }
header GH<T> { T f; }
enum Color { Red, Green, Blue }
enum bit<8> Proto { TCP = 6, UDP = 17, }
@hidden enum int<4> Sig { A = -1, B = 2 }

extern void log_msg<T>(in string msg, in T data);
extern bit<16> compute(in bit<8> x);
extern Checksum {
    Checksum();
    void clear();
    void update<T>(in T data);
    bit<16> get();
}
extern Register<T, I> {
    Register(bit<32> size);
    Register(bit<32> size, T initial);
    T read(in I index);
    void write(in I index, in T value);
    @deprecated("x") abstract T abs_m(in T v);
}
extern Virtual { Virtual(); abstract bit<16> f(in bit<16> ix); }

parser P<H>(packet_in b, out H h);
control C<H, M>(inout H h, inout M m);
control D(packet_out p, in headers_t h);
package Pkg<H, M>(P<H> p, C<H, M> c, @optional D d);

bit<8> max(in bit<8> a, in bit<8> b) {
    if (a > b) return a; else { return b; }
}
T ident<T>(in T x) { return x; }
action top_act(bit<8> x) { }

parser MyP(packet_in b, out headers_t h)(bit<8> ctor_arg) {
    value_set<bit<16>>(4) pvs;
    value_set<tuple<bit<8>, bit<8>>>(2) pvs2;
    Checksum() ck;
    bit<8> counter = 0;
    const bit<8> K = 1;
    @name("start") state start {
        b.extract(h.eth);
        b.extract<ethernet_t>(h.stack.next);
        counter = counter + 1;
        transition select(h.eth.etherType, counter) {
            (0x0800, _): parse_ip;
            (0x86dd &&& 0xffff, 1 .. 5): parse_ip;
            (pvs, default): accept;
            (default, 3): reject;
            default: accept;
        }
    }
    state parse_ip {
        bit<32> tmp = b.lookahead<bit<32>>();
        b.advance(32);
        verify(tmp != 0, error.PacketTooShort);
        transition select(tmp[7:0]) {
            8w1 &&& 8w1: accept;
            0 .. 7: s3;
            pvs: accept;
            _: reject;
        }
    }
    state s3 { transition accept; }
    state s4 { }
}

control MyC(inout headers_t h, inout Generic<bit<8>> m)(bool flag) {
    Register<bit<32>, bit<10>>(1024) reg;
    Register<bit<32>, bit<10>>(size = 1024, initial = 0) reg2;
    Virtual() v = {
        bit<16> f(in bit<16> ix) { return ix + 1; }
    };
    bit<8> local_v;
    const bit<8> LC = 3;
    action a1(inout bit<8> x, bit<8> y, @__ref bit<32> z) {
        x = y;
        x = x |+| y |-| 1;
        x[3:0] = y[7:4];
        h.stack[1].dst = 48w0;
        h.stack.push_front(1);
        exit;
    }
    action a2() { }
    table t1 {
        key = {
            h.eth.dst : exact @name("dst");
            @name("src") h.eth.src : ternary;
            h.eth.etherType[15:8] : lpm;
            h.eth.isValid() : exact;
        }
        actions = { a1; @defaultonly a2; .top_act; }
        default_action = a2();
        const default_action = a2;
        size = 1024;
        implementation = action_profile(32w128);
        counters = direct_counter(CounterType.packets);
        support_timeout = true;
        @my_prop custom = { 1, 2 };
        const entries = {
            (48w1, 48w0 &&& 48w0, 16w0x0800, true) : a1(1, 2, 3);
            (_, _, 0x0800 .. 0x0900, default) : a2();
            priority = 10: (1, 2, 3, true) : a2 @foo;
            @entry_ann const (1, 2, 3, false) : a2();
        }
    }
    table t2 {
        key = { local_v : exact; }
        actions = { a2; }
        entries = { priority = (LC + 1): 1 : a2(); 2 : a2; }
    }
    apply {
        bit<8> x = 0;
        int<8> y = (int<8>)x;
        bool b2 = (bool)1w1;
        ethernet_t e = { dst = 1, src = 2, etherType = 3 };
        ethernet_t e2 = {#};
        headers_t hh = { eth = e, ... };
        tuple<bit<8>, bool> tp = { 1, true };
        Generic<bit<8>> g = (Generic<bit<8>>){ field = 1 };
        x = (x + 1) * 2 - 3 / 4 % 5;
        x = x << 2 >> 1;
        x = x & 0xf | 0x10 ^ 0x3;
        x = ~x;
        x = -x;
        x = +x;
        x = flag ? x : 8w0;
        b2 = x == 1 || x != 2 && x < 3 && x <= 4 && x > 5 && x >= 6;
        bit<16> cc = x ++ x;
        x = (bit<8>) -y;
        x = (bit<8>)(y + 1);
        x = max(a = x, b = 1);
        x = ident<bit<8>>(x);
        x = .C8;
        x = (bit<8>)Color.Red;
        bit<32> sz = ethernet_t.minSizeInBits();
        error err = error.NoError;
        x += 1; x -= 1; x *= 2; x /= 2; x %= 3;
        x <<= 1; x >>= 1; x &= 1; x |= 1; x ^= 1; x |+|= 1; x |-|= 1;
        log_msg("x", { x, y });
        log_msg<tuple<bit<8>>>("x", { x });
        reg.read(_, 0);
        reg.write(index = 0, value = 1);
        if (t1.apply().hit) { a2(); }
        else if (!t1.apply().miss) { }
        switch (t1.apply().action_run) {
            a1:
            a2: { x = 1; }
            default: { }
        }
        switch (x) {
            1: { }
            2:
            3: { }
        }
        @atomic { x = 2; }
        {}
        ;
        for (bit<8> i = 0; i < 4; i = i + 1) { x = x + i; }
        for (bit<8> i = 0, j = 1; i < j; i += 1, j += 1) { continue; }
        for (bit<8> k in 1 .. 4) { break; }
        for (e in hh.eth) { }
        MyInst(1) inner;
        return;
    }
}

control MyD(packet_out p, in headers_t h) {
    apply { p.emit(h.eth); p.emit<ethernet_t>(h.eth); }
}

Pkg(MyP(1), MyC(true), MyD()) main;
Pkg<headers_t, Generic<bit<8>>>(p = MyP(1), c = MyC(flag = false)) main2;
@pkginfo(arch = "v1model", version = "1") const bit<8> after = 1;
@structured[k = 1, v = "x"] const bit<8> sa = 1;
@structured2[1, "x", true] const bit<8> sb = 1;
@unstructured(a b [c] {d} (e)) const bit<8> sc = 1;
