// expect: error E0003: an include of a device (read without end) is refused before cpp runs
#include <core.p4>
#include "/dev/zero"
