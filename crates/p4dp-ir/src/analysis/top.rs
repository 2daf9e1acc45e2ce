//! v1model's top-level parameters: the glue keeps one `struct v1st` with the packet's headers,
//! metadata and standard metadata, and every top-level block reaches these parameters through
//! one pointer to it instead of one pointer per parameter in its frame.
//!
//! Invariant: a parameter is in the map only if every block of the package has the v1model
//! signature (so each listed parameter is one of those three objects).

use std::collections::HashMap;

use super::Owner;
use crate::*;

/// Which object of the v1model glue's state a top-level parameter is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TopParam {
    Headers,
    Meta,
    StandardMeta,
}

impl TopParam {
    /// The member of the glue's state struct holding it.
    pub fn member(self) -> &'static str {
        match self {
            TopParam::Headers => "hdr",
            TopParam::Meta => "meta",
            TopParam::StandardMeta => "sm",
        }
    }
}

/// v1model: the headers, metadata and standard-metadata parameters of the parser and of each
/// control of `main`. Empty for other architectures or unexpected signatures (the glue then
/// binds each parameter's pointer itself).
pub fn top_params(p: &Program) -> HashMap<(Owner, VarId), TopParam> {
    use TopParam::*;
    let mut m = HashMap::new();
    let Some(pkg) = p.package.as_ref() else { return m };
    if pkg.arch != "v1model" || pkg.blocks.len() != 6 {
        return m;
    }
    // positions of hdr, meta, sm in each block's parameter list
    let shape: [&[(usize, TopParam)]; 6] = [
        &[(1, Headers), (2, Meta), (3, StandardMeta)],
        &[(0, Headers), (1, Meta)],
        &[(0, Headers), (1, Meta), (2, StandardMeta)],
        &[(0, Headers), (1, Meta), (2, StandardMeta)],
        &[(0, Headers), (1, Meta)],
        &[(1, Headers)],
    ];
    let arity = [4, 2, 3, 3, 2, 2];
    for (i, (_, b)) in pkg.blocks.iter().enumerate() {
        let (o, params) = match *b {
            BlockRef::Parser(x) if i == 0 => (Owner::Parser(x), &p.parsers[x].params),
            BlockRef::Control(x) if i > 0 => (Owner::Control(x), &p.controls[x].params),
            _ => return HashMap::new(),
        };
        if params.len() != arity[i] {
            return HashMap::new();
        }
        for (k, what) in shape[i] {
            m.insert((o, params[*k]), *what);
        }
    }
    m
}
