//! Debug helper: `cargo run -p p4dp-sema --example show_ir -- prog.p4 [include_dir]` prints the IR
//! of a program or its diagnostics.
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: show_ir prog.p4 [include_dir]");
        std::process::exit(2);
    };
    let inc: Vec<PathBuf> = args.get(2).map(PathBuf::from).into_iter().collect();
    match p4dp_sema::compile_file(std::path::Path::new(path), &inc, &[]) {
        Ok(c) => print!("{}", p4dp_ir::print::program(c.program.program())),
        Err((sm, d)) => {
            eprint!("{}", p4dp_syntax::render_all(&sm, &d));
            std::process::exit(1);
        }
    }
}
