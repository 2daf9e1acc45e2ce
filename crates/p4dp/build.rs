//! Gives the `p4dp` binary an rpath to the C runtime library built by `p4dp-rt`.
fn main() {
    if let Ok(dir) = std::env::var("DEP_P4DP_RT_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
