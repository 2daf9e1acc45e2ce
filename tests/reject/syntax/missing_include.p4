#include <does_not_exist.p4>
const bit<8> A = 1;
