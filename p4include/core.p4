/*
 * core.p4 - the P4_16 core library for p4dp.
 *
 * Written for p4dp from the P4_16 language specification (section "P4 core
 * library"). Declarations and signatures follow the specification so that
 * existing programs compile unchanged.
 */

#ifndef _CORE_P4_
#define _CORE_P4_

/* Standard error codes. Architectures and programs may add more. */
error {
    NoError,               // no error
    PacketTooShort,        // not enough bits in the packet for extract/lookahead/advance
    NoMatch,               // a select expression matched no case
    StackOutOfBounds,      // reference to an invalid element of a header stack
    HeaderTooShort,        // extract of a varbit field with a too large size
    ParserTimeout,         // the parser ran out of time
    ParserInvalidArgument  // parser operation called with an unsupported argument
}

/* The packet as seen by a parser. */
extern packet_in {
    /// Read a fixed-size header from the packet into hdr and make it valid.
    /// Fails with error.PacketTooShort when too few bits remain.
    void extract<T>(out T hdr);

    /// Read a header that ends in a varbit field; variableFieldSizeInBits
    /// bits go into that field. Fails with error.HeaderTooShort when the size
    /// exceeds the field's maximum, with error.PacketTooShort when too few
    /// bits remain.
    void extract<T>(out T variableSizeHeader,
                    in bit<32> variableFieldSizeInBits);

    /// Read the next sizeof(T) bits without moving the cursor.
    T lookahead<T>();

    /// Move the cursor forward by sizeInBits bits.
    void advance(in bit<32> sizeInBits);

    /// Total packet length in bytes.
    bit<32> length();
}

/* The packet as built by a deparser. */
extern packet_out {
    /// Append hdr to the output if it is a valid header; append each valid
    /// element of a stack, each field of a struct, the valid member of a union.
    void emit<T>(in T hdr);
}

/// Stop the parser with error e when check is false.
extern void verify(in bool check, in error toSignal);

/// The action that does nothing; default for tables without a default_action.
@noWarn("unused")
action NoAction() {}

/* Standard match kinds of all architectures. */
match_kind {
    exact,
    ternary,
    lpm
}

/// Compile-time assertion (P4_16 v1.2.2 and later).
extern bool static_assert(bool check, string message);
extern bool static_assert(bool check);

#endif  /* _CORE_P4_ */
