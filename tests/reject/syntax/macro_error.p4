// The error is inside a macro expansion: the expanded line is shown.
#define ASSIGN(a, b) a = b
control C(inout bit<8> x) {
    apply {
        ASSIGN(x, 1) ASSIGN(x, 2);
    }
}
