//! p4dp-syntax
