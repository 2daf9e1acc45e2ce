//! p4dp-ir
