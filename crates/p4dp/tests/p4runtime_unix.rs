//! P4Runtime on a Unix socket: `p4dp serve --p4runtime unix:PATH` creates the socket with mode
//! 0600, serves a client there as over TCP (arbitration, pipeline push, a write read back, the
//! ports service through `p4dp port`), refuses a path where a server answers or that is not a
//! socket (leaving the file alone), replaces a stale socket file, removes its socket when it
//! stops, and refuses TLS and malformed addresses before it starts.

mod p4rt_common;

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient;
use p4dp_p4runtime::proto::p4::v1::*;
use p4rt_common::*;
use tonic::transport::Channel;

async fn connect_unix(path: &Path) -> P4RuntimeClient<Channel> {
    for _ in 0..100 {
        if let Ok(ch) = p4dp_p4runtime::unix_client::connect(path).await {
            return P4RuntimeClient::new(ch).max_decoding_message_size(64 << 20);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("cannot connect to unix:{}", path.display());
}

/// `p4dp serve` on `unix:PATH` with no ports; its standard error goes to `log`.
fn serve_unix(path: &Path, log: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .args(["serve", "--duration", "60", "--mem", "256", "--p4runtime"])
        .arg(format!("unix:{}", path.display()))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).expect("log file"))
        .spawn()
        .expect("start p4dp serve")
}

fn is_socket(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_socket())
}

fn dmac_entry(info: &p4dp_p4runtime::proto::p4::config::v1::P4Info, mac: &[u8], port: &[u8]) -> TableEntry {
    TableEntry {
        table_id: id_of(info, "FwdIngress.dmac"),
        r#match: vec![exact(1, mac)],
        action: Some(action(id_of(info, "FwdIngress.forward"), &[port])),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unix_socket_serves_a_controller_and_only_its_user() {
    let dir = temp_dir("p4rt-unix");
    let sock = dir.join("p4runtime.sock");
    let (info, dc) = build("fwd", &dir);

    // a stale socket file (its server is gone) is replaced
    drop(std::os::unix::net::UnixListener::bind(&sock).expect("a stale socket"));
    assert!(is_socket(&sock));
    let mut sw = serve_unix(&sock, &dir.join("serve.log"));
    let mut c = connect_unix(&sock).await;
    let mode = std::fs::metadata(&sock).expect("the socket").permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the socket's mode is {:o}", mode & 0o777);

    // a controller's session, as over TCP
    let _s = Stream::open(&mut c, 10, tonic::Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let e = dmac_entry(&info, &[2, 0, 0, 0, 0, 1], &[3]);
    write(
        &mut c,
        10,
        vec![update(update::Type::Insert, entity::Entity::TableEntry(e.clone()))],
    )
    .await
    .expect("the insert");
    let got = read(
        &mut c,
        entity::Entity::TableEntry(TableEntry {
            table_id: e.table_id,
            ..Default::default()
        }),
    )
    .await
    .expect("the read");
    assert_eq!(got, vec![entity::Entity::TableEntry(e)]);

    // the operator's command reaches the same server
    let port = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .args(["port", "list", "--p4runtime"])
        .arg(format!("unix:{}", sock.display()))
        .output()
        .expect("run p4dp port");
    assert!(
        port.status.success(),
        "p4dp port list: {}",
        String::from_utf8_lossy(&port.stderr)
    );
    assert!(String::from_utf8_lossy(&port.stdout).contains("admin"));

    // a second switch on the same path is refused; the socket still serves the first
    let out = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .args(["serve", "--duration", "5", "--mem", "256", "--p4runtime"])
        .arg(format!("unix:{}", sock.display()))
        .output()
        .expect("run p4dp serve");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a second server started: {err}");
    assert!(err.contains("a server is listening on it"), "{err}");
    c.capabilities(CapabilitiesRequest { device_id: DEVICE })
        .await
        .expect("the first switch still answers");

    // SIGTERM stops the switch although the controller's stream is still open (its connection
    // is ended after the grace period), and the switch removes its socket
    // SAFETY: kill only sends a signal to the child we started.
    assert_eq!(unsafe { libc::kill(sw.id() as i32, libc::SIGTERM) }, 0);
    let t = std::time::Instant::now();
    let st = loop {
        if let Some(st) = sw.try_wait().expect("the switch's status") {
            break st;
        }
        if t.elapsed() > Duration::from_secs(30) {
            let _ = sw.kill();
            panic!("the switch did not stop on SIGTERM with a controller connected");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let log = std::fs::read_to_string(dir.join("serve.log")).expect("the switch's log");
    // 128 + SIGTERM is the status of a switch that stopped as asked; the log line says it got
    // that far by itself (a second signal, which ends it at once, was not sent)
    assert_eq!(st.code(), Some(128 + libc::SIGTERM), "the switch's exit: {st:?}\n{log}");
    assert!(log.contains("p4runtime: stopped after"), "{log}");
    assert!(!sock.exists(), "the socket file is left behind");
}

#[test]
fn bad_unix_addresses_and_tls_on_a_unix_socket_are_refused_before_the_switch_starts() {
    let dir = temp_dir("p4rt-unix-bad");
    let serve = |addr: &str, extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_p4dp"))
            .args(["serve", "--duration", "5", "--mem", "256", "--p4runtime", addr])
            .args(extra)
            .output()
            .expect("run p4dp serve");
        assert!(!out.status.success(), "p4dp serve --p4runtime {addr} {extra:?} started");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // a path that is not a socket: refused, the file left as it was
    let file = dir.join("not-a-socket");
    std::fs::write(&file, b"keep me").expect("a file");
    let err = serve(&format!("unix:{}", file.display()), &[]);
    assert!(err.contains("the file exists and is not a socket"), "{err}");
    assert_eq!(std::fs::read(&file).expect("the file"), b"keep me");
    // no path, and a path longer than a socket address holds
    let err = serve("unix:", &[]);
    assert!(err.contains("needs a path"), "{err}");
    let long = format!("unix:/tmp/{}", "x".repeat(120));
    let err = serve(&long, &[]);
    assert!(err.contains("at most 107 bytes"), "{err}");
    // TLS: refused before it reads the certificate files (which do not exist)
    let err = serve(
        &format!("unix:{}", dir.join("s.sock").display()),
        &[
            "--p4runtime-tls-cert",
            "/nonexistent.pem",
            "--p4runtime-tls-key",
            "/nonexistent.key",
        ],
    );
    assert!(err.contains("TLS is for TCP addresses"), "{err}");
    assert!(!dir.join("s.sock").exists());
}
