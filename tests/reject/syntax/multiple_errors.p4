// Several independent syntax errors: all are reported in one run.
header h_t {
    bit<8> a
    bit<8> b;
}

const bit<8> K = ;

control C(inout h_t h) {
    action set(bit<8> v) { h.a = v * ; }
    table t {
        key = { h.a exact; }
        actions = { set; }
        size 16;
    }
    apply {
        t.apply();
        if (h.a == 1 { h.b = 2; }
    }
}
