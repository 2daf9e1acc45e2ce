//! Builds `libp4dp_rt.so` (the runtime) and `libp4dp_bench.so` (the in-process traffic sources
//! that this crate's `bench` and `bench_dp` modules wrap) with the runtime's Makefile and links both
//! (with an rpath, so test and example binaries of this crate find them). Dependent crates that build binaries must add the
//! rpath themselves: `println!("cargo:rustc-link-arg=-Wl,-rpath,{}", env::var("DEP_P4DP_RT_LIB_DIR")?)`.
use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let runtime = manifest.join("../../runtime");
    let runtime = runtime.canonicalize().unwrap_or(runtime);
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR")).join("runtime");
    let status = Command::new("make")
        .arg("-C")
        .arg(&runtime)
        .arg(format!("BUILD={}", out.display()))
        .arg("-j2")
        .arg("all")
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!(
            "building the C runtime failed: `make -C {} BUILD={}` exited with {s}",
            runtime.display(),
            out.display()
        ),
        Err(e) => panic!("cannot run make for the C runtime: {e}"),
    }
    // Snapshot the public headers next to the library, so a built p4dp compiles programs against
    // exactly the ABI of the library it links (not whatever the source tree holds later).
    let inc_src = runtime.join("include/p4dp");
    let inc_dst = out.join("include/p4dp");
    std::fs::create_dir_all(&inc_dst).expect("creating the header snapshot directory");
    for e in std::fs::read_dir(&inc_src).expect("reading runtime/include/p4dp") {
        let e = e.expect("reading runtime/include/p4dp");
        let name = e.file_name();
        if name.to_string_lossy().ends_with(".h") {
            std::fs::copy(e.path(), inc_dst.join(&name)).expect("copying a runtime header");
        }
    }
    // The crate's tests build tests/rt_prog_tiny.c from `include_dir()/../tests`: snapshot it too.
    std::fs::create_dir_all(out.join("tests")).expect("creating the test-program snapshot directory");
    std::fs::copy(runtime.join("tests/rt_prog_tiny.c"), out.join("tests/rt_prog_tiny.c"))
        .expect("copying tests/rt_prog_tiny.c");
    println!("cargo:rustc-env=P4DP_RT_INCLUDE_DIR={}", out.join("include").display());
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=dylib=p4dp_bench");
    println!("cargo:rustc-link-lib=dylib=p4dp_rt");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", out.display());
    println!("cargo:lib_dir={}", out.display());
    println!("cargo:include_dir={}", runtime.join("include").display());
    println!("cargo:rustc-env=P4DP_RT_LIB_DIR={}", out.display());
    for p in ["src", "bench", "include", "Makefile", "tests/rt_prog_tiny.c"] {
        println!("cargo:rerun-if-changed={}", runtime.join(p).display());
    }
}
