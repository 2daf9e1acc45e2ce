// Errors in type argument lists and casts.
control C(inout bit<8> x) {
    Register<bit<8>,>(4) r;
    apply {
        x = (bit<8 x;
        r.read<>(x, 0);
    }
}
