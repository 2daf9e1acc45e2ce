//! rtc.p4 `@linear` tables in the generated C (docs/rtc.md): the lookup is the runtime's direct
//! array access (`p4dp_table_apply_linear`, abi.h), and only a `@linear` table's is.

use p4dp_testutil::{compile, repo_root};

fn gen(name: &str) -> String {
    compile::c_of(&repo_root().join("tests/programs").join(format!("{name}.p4")))
}

#[test]
fn linear_table_looks_up_its_row_directly() {
    let c = gen("rtc_linear");
    // `ports`, table 0, of a one-byte key
    assert!(
        c.contains("p4dp_table_apply_linear(R->ctx, 0u, key, 1u, &_hit)"),
        "no direct lookup in:\n{c}"
    );
    assert!(
        !c.contains("p4dp_table_apply_exact("),
        "a hashed lookup of the linear table in:\n{c}"
    );
    assert!(c.contains("P4DP_STORAGE_F_LINEAR"), "the table is not flagged linear");
}

#[test]
fn other_exact_tables_look_up_through_the_read_index() {
    let c = gen("rtc_externs");
    assert!(c.contains("p4dp_table_apply_exact("), "no read-index lookup in:\n{c}");
    assert!(
        !c.contains("p4dp_table_apply_linear("),
        "a direct lookup of a table that is not linear"
    );
}
