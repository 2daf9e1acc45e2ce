// A select case without `:`, and code after the transition.
parser P(packet_in b, out bit<8> x) {
    state start {
        transition select(x) {
            1 accept;
            (2, 3): reject;
            default: accept;
        }
        x = 1;
    }
}
