//! p4dp-stf
