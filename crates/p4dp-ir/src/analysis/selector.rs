//! The action-selector split: a table implemented by an action selector has two kinds of keys,
//! the match keys its entries are looked up by and the `selector` keys hashed to pick a member of
//! a group. The back end builds the lookup key from the match keys only.

use crate::*;

/// The positions in `t.keys` of the keys its entries match on: all of them for a direct table,
/// those other than `selector` keys for a table with an `implementation`.
pub fn match_keys(t: &Table) -> Vec<usize> {
    t.keys
        .iter()
        .enumerate()
        .filter(|(_, k)| t.implementation.is_none() || k.match_kind != MatchKind::Selector)
        .map(|(i, _)| i)
        .collect()
}
