//! P4Runtime over TLS and mutual TLS: `p4dp serve` with `--p4runtime-tls-cert/-key` answers a
//! TLS client that trusts its CA and no plain-text client; with `--p4runtime-tls-client-ca` it
//! answers only clients that present a certificate of that CA. Certificates are made at test
//! time with the `openssl` command. Bad TLS options are one error line before anything starts.

mod p4rt_common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient;
use p4dp_p4runtime::proto::p4::v1::CapabilitiesRequest;
use p4rt_common::*;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run openssl");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA `NAME-ca.pem`/`.key` in `dir`.
fn make_ca(dir: &Path, name: &str) {
    let (key, pem, subj) = (
        format!("{name}-ca.key"),
        format!("{name}-ca.pem"),
        format!("/CN={name} test CA"),
    );
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            &key,
            "-out",
            &pem,
            "-subj",
            &subj,
            "-days",
            "2",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ],
    );
}

/// A certificate `NAME.pem`/`.key` signed by CA `ca`, with the given extensions.
fn make_cert(dir: &Path, ca: &str, name: &str, ext: &str) {
    let (key, csr, pem) = (format!("{name}.key"), format!("{name}.csr"), format!("{name}.pem"));
    let subj = format!("/CN={name}");
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            &key,
            "-out",
            &csr,
            "-subj",
            &subj,
        ],
    );
    let extfile = format!("{name}.ext");
    std::fs::write(dir.join(&extfile), ext).expect("write the extensions");
    let (ca_pem, ca_key) = (format!("{ca}-ca.pem"), format!("{ca}-ca.key"));
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            &ca_pem,
            "-CAkey",
            &ca_key,
            "-CAcreateserial",
            "-out",
            &pem,
            "-days",
            "2",
            "-extfile",
            &extfile,
        ],
    );
}

fn make_certs(dir: &Path) {
    make_ca(dir, "good");
    make_ca(dir, "other");
    make_cert(
        dir,
        "good",
        "server",
        "basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
    );
    let client = "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n";
    make_cert(dir, "good", "client", client);
    make_cert(dir, "other", "stranger", client);
}

fn pem(dir: &Path, f: &str) -> Vec<u8> {
    std::fs::read(dir.join(f)).expect("read a PEM file")
}

/// Capabilities over TLS trusting `dir`'s good CA, with the client certificate `identity` (a
/// name in `dir`) if given; Err with the failure's text.
async fn tls_capabilities(addr: &str, dir: &Path, identity: Option<&str>) -> Result<String, String> {
    let mut tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(pem(dir, "good-ca.pem")))
        .domain_name("localhost");
    if let Some(n) = identity {
        tls = tls.identity(Identity::from_pem(
            pem(dir, &format!("{n}.pem")),
            pem(dir, &format!("{n}.key")),
        ));
    }
    let ch = Channel::from_shared(format!("https://{addr}"))
        .map_err(|e| e.to_string())?
        .tls_config(tls)
        .map_err(|e| e.to_string())?
        .connect_timeout(Duration::from_secs(5))
        .connect()
        .await
        .map_err(|e| format!("connect: {e:?}"))?;
    P4RuntimeClient::new(ch)
        .capabilities(CapabilitiesRequest::default())
        .await
        .map(|r| r.into_inner().p4runtime_api_version)
        .map_err(|e| format!("capabilities: {e:?}"))
}

/// Waits until a TLS client with a good certificate gets Capabilities.
async fn wait_ready(addr: &str, dir: &Path) {
    for _ in 0..150 {
        if tls_capabilities(addr, dir, Some("client")).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the TLS server on {addr} does not answer");
}

async fn plain_capabilities(addr: &str) -> Result<String, String> {
    let mut c = P4RuntimeClient::connect(format!("http://{addr}"))
        .await
        .map_err(|e| format!("connect: {e:?}"))?;
    c.capabilities(CapabilitiesRequest::default())
        .await
        .map(|r| r.into_inner().p4runtime_api_version)
        .map_err(|e| format!("capabilities: {e:?}"))
}

fn arg(dir: &Path, f: &str) -> String {
    dir.join(f).display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_serves_trusting_clients_and_mutual_tls_refuses_clients_without_a_certificate() {
    let dir = temp_dir("p4rt-tls");
    make_certs(&dir);
    let server = |extra: &[String]| {
        let mut a = vec![
            "--p4runtime-tls-cert".to_string(),
            arg(&dir, "server.pem"),
            "--p4runtime-tls-key".to_string(),
            arg(&dir, "server.key"),
        ];
        a.extend_from_slice(extra);
        start(&a)
    };

    // TLS: any client that trusts the CA, with or without a certificate; no plain-text client
    let sw = server(&[]);
    wait_ready(&sw.addr, &dir).await;
    assert_eq!(tls_capabilities(&sw.addr, &dir, None).await.as_deref(), Ok("1.5.0"));
    let plain = plain_capabilities(&sw.addr).await;
    assert!(plain.is_err(), "a plain-text client is not served over TLS: {plain:?}");
    drop(sw);

    // mutual TLS: only a client certificate of the client CA
    let sw = server(&["--p4runtime-tls-client-ca".to_string(), arg(&dir, "good-ca.pem")]);
    wait_ready(&sw.addr, &dir).await;
    assert_eq!(
        tls_capabilities(&sw.addr, &dir, Some("client")).await.as_deref(),
        Ok("1.5.0")
    );
    let anon = tls_capabilities(&sw.addr, &dir, None).await;
    assert!(anon.is_err(), "a client without a certificate is refused: {anon:?}");
    let stranger = tls_capabilities(&sw.addr, &dir, Some("stranger")).await;
    assert!(
        stranger.is_err(),
        "a certificate of another CA is refused: {stranger:?}"
    );
    assert!(plain_capabilities(&sw.addr).await.is_err());
    // the server still serves good clients after refusing others
    assert_eq!(
        tls_capabilities(&sw.addr, &dir, Some("client")).await.as_deref(),
        Ok("1.5.0")
    );
    drop(sw);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `p4dp serve ARGS` must fail at once with a message containing `want`.
fn serve_fails(args: &[String], want: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .args(["serve", "--p4runtime", "127.0.0.1:1", "--duration", "1"])
        .args(args)
        .output()
        .expect("run p4dp serve");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "p4dp serve {args:?} must fail");
    assert!(err.contains(want), "p4dp serve {args:?}: `{want}` not in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_tls_options_are_clear_errors() {
    let dir = temp_dir("p4rt-tls-bad");
    make_certs(&dir);
    std::fs::write(dir.join("junk.pem"), "not a certificate\n").unwrap();
    let a = |v: &[&str]| -> Vec<String> { v.iter().map(|s| s.to_string()).collect() };
    let (cert, key, ca) = (
        arg(&dir, "server.pem"),
        arg(&dir, "server.key"),
        arg(&dir, "good-ca.pem"),
    );
    let (junk, missing) = (arg(&dir, "junk.pem"), arg(&dir, "missing.pem"));
    serve_fails(
        &a(&["--p4runtime-tls-cert", &missing, "--p4runtime-tls-key", &key]),
        "--p4runtime-tls-cert: cannot read",
    );
    serve_fails(
        &a(&["--p4runtime-tls-cert", &cert, "--p4runtime-tls-key", &missing]),
        "--p4runtime-tls-key: cannot read",
    );
    serve_fails(
        &a(&["--p4runtime-tls-cert", &junk, "--p4runtime-tls-key", &key]),
        "holds no PEM certificate",
    );
    serve_fails(
        &a(&["--p4runtime-tls-cert", &cert, "--p4runtime-tls-key", &junk]),
        "holds no PEM private key",
    );
    serve_fails(
        &a(&[
            "--p4runtime-tls-cert",
            &cert,
            "--p4runtime-tls-key",
            &key,
            "--p4runtime-tls-client-ca",
            &junk,
        ]),
        "client CA holds no PEM certificate",
    );
    // a PEM key block whose contents are not a key
    std::fs::write(
        dir.join("badkey.pem"),
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    serve_fails(
        &a(&[
            "--p4runtime-tls-cert",
            &cert,
            "--p4runtime-tls-key",
            &arg(&dir, "badkey.pem"),
        ]),
        "P4Runtime TLS: the TLS configuration is invalid",
    );
    // a key without a certificate, a client CA without TLS
    serve_fails(&a(&["--p4runtime-tls-key", &key]), "--p4runtime-tls-cert");
    serve_fails(&a(&["--p4runtime-tls-client-ca", &ca]), "--p4runtime-tls-cert");
    let _ = std::fs::remove_dir_all(&dir);
}
