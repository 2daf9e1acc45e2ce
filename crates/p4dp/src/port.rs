//! `p4dp port`: the operator's command for port liveness. It calls the `p4dp.v1.Ports` service
//! (crates/p4dp-p4runtime/proto/p4dp/v1/ports.proto) of a switch started with `p4dp serve` or
//! `p4dp run --p4runtime`: list the ports with their admin and link state, take one down, bring
//! it up again. What liveness changes is in docs/p4runtime.md, "Port liveness".

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use p4dp_p4runtime::proto::p4dp::v1::ports_client::PortsClient;
use p4dp_p4runtime::proto::p4dp::v1::{GetPortsRequest, SetPortAdminRequest};

#[derive(Args)]
pub struct PortArgs {
    #[command(subcommand)]
    action: PortAction,
    /// Address of the switch's P4Runtime server: HOST:PORT (plain TCP) or `unix:PATH` (the ports
    /// service is served there).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9559", global = true)]
    p4runtime: String,
    /// The switch's device id.
    #[arg(long, default_value_t = 1, global = true)]
    device_id: u64,
}

#[derive(Subcommand)]
enum PortAction {
    /// Print every port with its liveness: admin state, link state, live (both up).
    List,
    /// Take a port down: replicas move to their backups, selector members watching it are left out.
    Down {
        /// P4 port number.
        port: u32,
    },
    /// Bring a port taken down up again.
    Up {
        /// P4 port number.
        port: u32,
    },
}

pub fn port(a: PortArgs) -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the client's runtime")?;
    rt.block_on(async move {
        let ch = match crate::serve::parse_addr(&a.p4runtime)? {
            crate::serve::ServeAddr::Tcp(sa) => {
                tonic::transport::Endpoint::from_shared(format!("http://{sa}"))?
                    .connect()
                    .await
            }
            crate::serve::ServeAddr::Unix(path) => p4dp_p4runtime::unix_client::connect(&path).await,
        }
        .with_context(|| format!("cannot connect to the switch at {}", a.p4runtime))?;
        let mut c = PortsClient::new(ch);
        let status = |s: tonic::Status| anyhow::anyhow!("{:?}: {}", s.code(), s.message());
        match a.action {
            PortAction::List => {
                let r = c
                    .get_ports(GetPortsRequest { device_id: a.device_id })
                    .await
                    .map_err(status)?
                    .into_inner();
                println!("{:>6}  {:<5} {:<5} live", "port", "admin", "link");
                let ud = |b: bool| if b { "up" } else { "down" };
                for p in r.ports {
                    println!(
                        "{:>6}  {:<5} {:<5} {}",
                        p.port,
                        ud(p.admin_up),
                        ud(p.link_up),
                        if p.admin_up && p.link_up { "yes" } else { "no" }
                    );
                }
            }
            PortAction::Down { port } | PortAction::Up { port } => {
                let up = matches!(a.action, PortAction::Up { .. });
                c.set_port_admin(SetPortAdminRequest {
                    device_id: a.device_id,
                    port,
                    up,
                })
                .await
                .map_err(status)?;
                println!("port {port} {}", if up { "up" } else { "down" });
            }
        }
        Ok(())
    })
}
