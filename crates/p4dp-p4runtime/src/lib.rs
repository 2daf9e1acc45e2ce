//! p4dp-p4runtime: the P4Runtime v1.5 gRPC server of p4dp. The only crate that knows protobuf.

pub mod proto {
    //! Messages and services generated from the official P4Runtime .proto files.
    pub mod p4 {
        pub mod v1 {
            tonic::include_proto!("p4.v1");
        }
        pub mod config {
            pub mod v1 {
                tonic::include_proto!("p4.config.v1");
            }
        }
    }
    /// p4dp's own messages and services (`proto/p4dp/v1/`: the role configuration, the ports'
    /// liveness).
    pub mod p4dp {
        pub mod v1 {
            tonic::include_proto!("p4dp.v1");
        }
    }
    pub mod google {
        pub mod rpc {
            tonic::include_proto!("google.rpc");
        }
    }
    /// The encoded `FileDescriptorSet` of the protos (for text-format parsing).
    pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/p4runtime_fds.bin"));
}

pub mod actprof;
pub mod arbitration;
pub mod batch;
pub mod bytes;
pub mod codec;
pub mod device_config;
pub mod digest;
pub mod externs;
pub mod extras;
pub mod fastwrite;
mod idle;
pub mod p4info;
pub mod ports;
pub mod reconcile;
pub mod roles;
pub mod server;
pub mod stream;
pub mod switch;
pub mod tables;
pub mod timing;
mod undo;
pub mod unix_client;
pub mod vset;

pub use device_config::DeviceConfig;
pub use server::{serve, Listener, Service, TlsConfig, TlsError};
pub use switch::{CompiledProgram, Compiler, DeviceOptions, PortSpec};
