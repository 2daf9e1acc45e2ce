//! The operator's interface to port liveness (`p4dp.v1.Ports`, proto/p4dp/v1/ports.proto),
//! served beside P4Runtime: takes ports down and up and reports their state. The runtime
//! republishes the replica lists and selector groups a change affects (runtime/src/liveness.c).

use tonic::{Request, Response, Status};

use crate::proto::p4dp::v1::ports_server::{Ports, PortsServer};
use crate::proto::p4dp::v1::{
    GetPortsRequest, GetPortsResponse, PortStatus, SetPortAdminRequest, SetPortAdminResponse,
};
use crate::server::Service;

/// The tonic server of the ports service.
pub fn server(svc: Service) -> PortsServer<Service> {
    PortsServer::new(svc)
}

fn check_device(svc: &Service, id: u64) -> Result<(), Status> {
    if id != svc.s.device_id {
        return Err(Status::not_found(format!(
            "unknown device id {id} (this switch is device {})",
            svc.s.device_id
        )));
    }
    Ok(())
}

#[tonic::async_trait]
impl Ports for Service {
    async fn set_port_admin(
        &self,
        req: Request<SetPortAdminRequest>,
    ) -> Result<Response<SetPortAdminResponse>, Status> {
        let r = req.into_inner();
        check_device(self, r.device_id)?;
        let svc = self.clone();
        // the runtime rebuilds lists (and may wait for an RCU grace period): a blocking thread
        tokio::task::spawn_blocking(move || {
            let mut st = svc.lock();
            if !st.dev.port_numbers().contains(&r.port) {
                return Err(Status::invalid_argument(format!("the device has no port {}", r.port)));
            }
            st.dev.port_admin_set(r.port, r.up).map_err(Status::internal)?;
            eprintln!("p4runtime: port {} set {}", r.port, if r.up { "up" } else { "down" });
            Ok(Response::new(SetPortAdminResponse {}))
        })
        .await
        .map_err(|e| Status::internal(format!("port admin: {e}")))?
    }

    async fn get_ports(&self, req: Request<GetPortsRequest>) -> Result<Response<GetPortsResponse>, Status> {
        let r = req.into_inner();
        check_device(self, r.device_id)?;
        let st = self.lock();
        let ports = st
            .dev
            .port_numbers()
            .into_iter()
            .map(|port| {
                let link_up = st
                    .dev
                    .active
                    .as_ref()
                    .and_then(|p| p.rt.port_state(port).ok())
                    .is_none_or(|s| s.link_up);
                PortStatus {
                    port,
                    admin_up: !st.dev.admin_down.contains(&port),
                    link_up,
                }
            })
            .collect();
        Ok(Response::new(GetPortsResponse { ports }))
    }
}
