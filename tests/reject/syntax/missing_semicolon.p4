// A statement without its terminating semicolon.
control C(inout bit<8> x) {
    apply {
        x = 1
    }
}
