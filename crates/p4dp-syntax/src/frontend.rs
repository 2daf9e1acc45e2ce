//! One-call front door: preprocess + parse, everything as diagnostics.

use crate::ast::Program;
use crate::diag::Diagnostic;
use crate::preprocess::{preprocess_into, PreprocessOptions};
use crate::span::SourceMap;
use std::path::{Path, PathBuf};

/// Preprocess `path` (with `include_dirs` after the program's own directory,
/// and `defines` as `-DNAME` / `-DNAME=VALUE`), add it to `sm` and parse it.
/// A preprocessor failure is returned as a diagnostic with an empty program.
pub fn load_and_parse(
    sm: &mut SourceMap,
    path: &Path,
    include_dirs: &[PathBuf],
    defines: &[(String, Option<String>)],
) -> (Program, Vec<Diagnostic>) {
    let opts = PreprocessOptions {
        include_dirs: include_dirs.to_vec(),
        defines: defines
            .iter()
            .map(|(k, v)| match v {
                Some(v) => format!("{k}={v}"),
                None => k.clone(),
            })
            .collect(),
        ..Default::default()
    };
    match preprocess_into(sm, path, &opts) {
        Ok(id) => crate::parse_program(sm, id),
        Err(d) => (Program::default(), vec![d]),
    }
}
