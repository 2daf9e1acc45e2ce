// Malformed integer literals and an unknown character.
const bit<8> A = 8w0xZZ;
const bit<8> B = 0b102;
const int<4> C = 0s1;
const bit<8> D = 1 $ 2;
