@name("unterminated)
const bit<8> A = 1;
