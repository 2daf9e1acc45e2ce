//! p4dp-cgen
