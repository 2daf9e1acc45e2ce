// Reserved keywords cannot be used as names; stray `}` at top level.
struct s_t { bit<8> table; }
const bit<8> switch = 1;
}
