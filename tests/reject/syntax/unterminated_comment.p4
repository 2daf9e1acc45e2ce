const bit<8> A = 1;
/* this comment never ends
const bit<8> B = 2;
