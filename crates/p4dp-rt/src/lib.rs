//! p4dp-rt
