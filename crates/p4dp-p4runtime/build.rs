//! Compiles the official P4Runtime .proto files with protox (no protoc) into prost messages and
//! tonic service code, with p4dp's own role configuration message and port liveness service (proto/p4dp/v1), and writes their file descriptor set (for parsing P4Info text format).
//! The files are fetched by `scripts/fetch_p4runtime_protos.sh` (run by `make build` through
//! scripts/setup.sh) into build/p4runtime-protos/; `P4DP_P4RUNTIME_PROTOS` overrides the location.
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=P4DP_P4RUNTIME_PROTOS");
    let dir = match std::env::var_os("P4DP_P4RUNTIME_PROTOS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../build/p4runtime-protos"),
    };
    let main_proto = dir.join("p4/v1/p4runtime.proto");
    println!("cargo:rerun-if-changed={}", main_proto.display());
    if !main_proto.is_file() {
        eprintln!(
            "error: the P4Runtime .proto files are missing ({} not found).\n\
             Run `bash scripts/fetch_p4runtime_protos.sh` (or `make build`, which runs it) to fetch them,\n\
             or point P4DP_P4RUNTIME_PROTOS at a directory holding p4/v1/p4runtime.proto.",
            main_proto.display()
        );
        std::process::exit(1);
    }
    // p4dp's own messages (the role configuration), committed in this crate
    let own = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("proto");
    for f in ["p4dp/v1/role_config.proto", "p4dp/v1/ports.proto"] {
        println!("cargo:rerun-if-changed={}", own.join(f).display());
    }
    let fds = match protox::compile(
        [
            "p4/v1/p4runtime.proto",
            "p4dp/v1/role_config.proto",
            "p4dp/v1/ports.proto",
        ],
        [&dir, &own],
    ) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: compiling the P4Runtime .proto files in {}: {e}", dir.display());
            std::process::exit(1);
        }
    };
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("p4runtime_fds.bin"), prost::Message::encode_to_vec(&fds))
        .expect("writing the descriptor set to OUT_DIR");
    tonic_prost_build::configure()
        // prost's encoding; decoding from the message as one slice (src/codec.rs)
        .codec_path("crate::codec::SliceCodec")
        .build_client(true)
        .build_server(true)
        .compile_fds(fds)
        .expect("generating the P4Runtime Rust code");
}
