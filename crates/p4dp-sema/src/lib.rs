//! p4dp-sema
