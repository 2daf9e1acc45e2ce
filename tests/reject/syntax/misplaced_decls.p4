// Declarations in contexts where the grammar does not allow them.
table t { actions = { } }
control C() {
    header h_t { bit<8> f; }
    apply { }
}
parser P() {
    table u { }
    state start { transition accept; }
}
