//! Debug driver: `cargo run -p p4dp-syntax --example p4parse -- [--show-tokens] [--show-ast] [--no-cpp] [-I dir] file.p4`
//! Prints diagnostics; exit code 1 if there are errors.
use p4dp_syntax::{parse_program, preprocess, render_all, SourceMap};
use std::path::PathBuf;

fn main() {
    let mut show_tokens = false;
    let mut show_ast = false;
    let mut no_cpp = false;
    let mut incs: Vec<PathBuf> = Vec::new();
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--show-tokens" => show_tokens = true,
            "--show-ast" => show_ast = true,
            "--no-cpp" => no_cpp = true,
            "-I" => incs.extend(args.next().map(PathBuf::from)),
            _ => files.push(PathBuf::from(a)),
        }
    }
    let mut failed = false;
    for f in files {
        let (mut sm, id) = if no_cpp {
            let mut sm = SourceMap::new();
            let text = match std::fs::read(&f) {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(e) => {
                    eprintln!("{}: {e}", f.display());
                    failed = true;
                    continue;
                }
            };
            let id = sm.add_file(f.display().to_string(), text);
            (sm, id)
        } else {
            match preprocess(&f, &incs, &[]) {
                Ok(x) => x,
                Err(d) => {
                    eprint!("{}", render_all(&SourceMap::new(), &[d]));
                    failed = true;
                    continue;
                }
            }
        };
        if show_tokens {
            print!("{}", p4dp_syntax::dump_tokens(&sm, id));
        }
        let (prog, diags) = parse_program(&mut sm, id);
        if show_ast {
            println!("{prog:#?}");
        }
        eprint!("{}", render_all(&sm, &diags));
        failed |= diags.iter().any(|d| d.is_error());
    }
    std::process::exit(if failed { 1 } else { 0 });
}
