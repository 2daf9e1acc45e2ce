//! The front end (p4dp-sema) and back end (p4dp-cgen) on a program, as the CLI runs them.

use std::path::Path;

use p4dp_sema::Compiled;

/// Preprocesses, parses, analyses and validates the program at `path` with `p4include/` on the
/// include path. On errors, returns the rendered diagnostics with repository paths relative.
pub fn front(path: &Path) -> Result<Compiled, String> {
    p4dp_sema::compile_file(path, &[crate::p4include_dir()], &[])
        .map_err(|(sm, d)| crate::relative_paths(&p4dp_syntax::render_all(&sm, &d)))
}

/// [`front`] on source text, written to `dir/name` first (cpp needs a file).
pub fn front_text(dir: &Path, name: &str, text: &str) -> Result<Compiled, String> {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    front(&path)
}

/// The generated C of the program at `path` (named after the file), panicking with the rendered
/// diagnostics if either end rejects it. For tests of what the back end emits.
pub fn c_of(path: &Path) -> String {
    let done = front(path).unwrap_or_else(|d| panic!("{}:\n{d}", path.display()));
    back(&done, &stem(path)).unwrap_or_else(|d| panic!("{}:\n{d}", path.display()))
}

/// The back end on a compiled program: its C, or the error rendered as `p4dp build` renders it
/// (an unsupported construct as the diagnostic of its kind at its source location).
pub fn back(done: &Compiled, program_name: &str) -> Result<String, String> {
    let opts = p4dp_cgen::CgenOptions {
        program_name: program_name.into(),
        ..Default::default()
    };
    p4dp_cgen::generate_c(&done.program, &opts).map_err(|e| render_cgen_error(&done.sm, e))
}

/// The diagnostics the whole compiler renders for a program it must reject, paths relative, as
/// `p4dp check` and `p4dp build` print them: the front end's, else every construct the back end's
/// capability check finds, else the back end's own error. `Err` if all of them accept it.
pub fn rejection(path: &Path) -> Result<String, String> {
    let done = match front(path) {
        Err(rendered) => return Ok(rendered),
        Ok(done) => done,
    };
    let unsupported = p4dp_cgen::capability_check(&done.program);
    if !unsupported.is_empty() {
        let diags: Vec<_> = unsupported.iter().map(p4dp_cgen::Unsupported::diagnostic).collect();
        return Ok(crate::relative_paths(&p4dp_syntax::render_all(&done.sm, &diags)));
    }
    match back(&done, &stem(path)) {
        Err(rendered) => Ok(rendered),
        Ok(_) => Err(format!(
            "{}: accepted by the front end and the back end",
            path.display()
        )),
    }
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "prog".into())
}

/// Mirrors `p4dp build`'s rendering of a back-end error (crates/p4dp/src/compile.rs).
fn render_cgen_error(sm: &p4dp_syntax::SourceMap, e: p4dp_cgen::CgenError) -> String {
    match e {
        p4dp_cgen::CgenError::Unsupported { kind, message, span } => {
            let d = p4dp_cgen::Unsupported { kind, message, span }.diagnostic();
            crate::relative_paths(&p4dp_syntax::render_all(sm, &[d]))
        }
        other => format!("{other}\n"),
    }
}
