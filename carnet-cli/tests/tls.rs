//! Remote toolsets over HTTPS (feature `remote-tls`): `carnet serve-mcp` behind a
//! TLS-terminating proxy (`tests/remote/tls_proxy.py`, Python's `ssl`) whose certificate a CA
//! made for the test issued (the `openssl` command). The CA reaches carnet the way an
//! operator gives a private CA: `SSL_CERT_FILE`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{Killed, endpoint, first_line, repo};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the `openssl` command (Debian: openssl)");
    assert!(out.status.success(), "openssl {args:?}: {}", text(&out.stderr));
}

/// Makes, in `dir`: `ca.pem` (a CA), `other-ca.pem` (a CA that issued nothing here), and
/// `server.pem` and `server.key` (a certificate for 127.0.0.1 that `ca.pem` issued). P-256
/// keys, valid for a day.
fn certificates(dir: &Path) {
    let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
    for ca in ["ca", "other-ca"] {
        let (keyout, out, subject) = (
            format!("{ca}.key"),
            format!("{ca}.pem"),
            format!("/CN=carnet test {ca}"),
        );
        let mut args = vec![
            "req", "-x509", "-days", "1", "-subj", &subject, "-keyout", &keyout, "-out", &out,
        ];
        args.extend(key);
        args.extend([
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign",
        ]);
        openssl(dir, &args);
    }
    let mut request = vec![
        "req",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
    ];
    request.extend(key);
    openssl(dir, &request);
    fs::write(dir.join("server.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "1",
            "-extfile",
            "server.ext",
            "-out",
            "server.pem",
        ],
    );
}

fn write_all(root: &Path, files: &[(&str, &str)]) {
    for (path, body) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, body).unwrap();
    }
}

/// `carnet serve-mcp` over HTTP on loopback, serving skill `csv-tips`: the server and its port.
fn upstream(root: &Path) -> (Killed, String) {
    write_all(
        root,
        &[
            (
                "agents/u/AGENT.md",
                "---\nname: u\ndescription: U\nskills: [csv-tips]\n---\nServe.\n",
            ),
            (
                "skills/csv-tips/SKILL.md",
                "---\nname: csv-tips\ndescription: Read CSV files\n---\nQuote fields that hold commas.\n",
            ),
        ],
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_carnet"))
        .args([
            "--dir",
            root.to_str().unwrap(),
            "serve-mcp",
            "u",
            "--http",
            "127.0.0.1:0",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = endpoint(&mut child);
    let server = Killed(child);
    let port = url
        .trim_start_matches("http://")
        .split(['/', ':'])
        .nth(1)
        .unwrap()
        .to_owned();
    (server, port)
}

/// The proxy giving HTTPS with `dir`'s certificate in front of `port`: it and its address.
fn proxy(dir: &Path, port: &str) -> (Killed, String) {
    let mut child = Command::new(python())
        .arg(repo().join("tests/remote/tls_proxy.py"))
        .args([dir.join("server.pem"), dir.join("server.key")])
        .arg(port)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let line = first_line(&mut child);
    (Killed(child), line.trim().to_owned())
}

/// `carnet ARGS` with the server at `https`, trusting the roots of file `roots` only.
fn carnet(args: &[&str], https: &str, roots: &Path, tmp: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_carnet"))
        .args(args)
        .env("CARNET_TEST_HTTPS", https)
        .env("SSL_CERT_FILE", roots)
        .env_remove("SSL_CERT_DIR")
        .env("CARNET_OAUTH_DIR", tmp.join("oauth"))
        .output()
        .unwrap()
}

#[test]
fn an_upstream_over_https_is_pinned_and_called_when_its_ca_is_trusted_and_refused_otherwise() {
    let tmp = tempfile::tempdir().unwrap();
    let certs = tmp.path().join("certs");
    fs::create_dir_all(&certs).unwrap();
    certificates(&certs);
    let (_server, port) = upstream(&tmp.path().join("upstream"));
    let (_proxy, https) = proxy(&certs, &port);
    assert!(https.starts_with("https://127.0.0.1:"), "{https}");

    let consumer: PathBuf = tmp.path().join("consumer");
    // The URL through a variable: messages name the server as written, never resolved.
    let toolset = "---\nname: shared\ndescription: Skills over HTTPS\nmcp:\n  url: \"${CARNET_TEST_HTTPS}/mcp\"\ntools: []\n---\n";
    write_all(
        &consumer,
        &[
            (
                "agents/a/AGENT.md",
                "---\nname: a\ndescription: A\nskills: [csv-tips]\n---\nHelp.\n",
            ),
            ("toolsets/shared/TOOLSET.md", toolset),
        ],
    );
    let dir = consumer.to_str().unwrap();
    let pin = |roots: &str| carnet(&["--dir", dir, "mcp", "pin"], &https, &certs.join(roots), tmp.path());

    // Issued by a CA the roots do not hold: refused, saying it is the certificate.
    let refused = pin("other-ca.pem");
    assert!(!refused.status.success(), "{}", text(&refused.stdout));
    let why = text(&refused.stderr);
    assert!(why.contains("toolset `shared`"), "{why}");
    assert!(why.contains("certificate") && why.contains("UnknownIssuer"), "{why}");
    assert!(
        why.contains("${CARNET_TEST_HTTPS}/mcp") && !why.contains(&https),
        "named as written: {why}"
    );
    assert!(!consumer.join("toolsets/shared/mcp.lock.json").exists());

    // Roots that cannot be read: a clear error, no panic.
    fs::write(certs.join("empty.pem"), "").unwrap();
    let rootless = pin("empty.pem");
    assert!(!rootless.status.success());
    let why = text(&rootless.stderr);
    assert!(
        why.contains("no root certificate to trust") && why.contains("SSL_CERT_FILE"),
        "{why}"
    );
    assert!(!why.contains("panicked"), "{why}");

    // Its CA trusted through `SSL_CERT_FILE`: pinned, then a call reaches the server.
    let pinned = pin("ca.pem");
    assert!(pinned.status.success(), "{}", text(&pinned.stderr));
    let load = ["--dir", dir, "call", "a", "loadSkill", r#"{"skillName": "csv-tips"}"#];
    let loaded = carnet(&load, &https, &certs.join("ca.pem"), tmp.path());
    assert!(
        text(&loaded.stdout).contains("Quote fields that hold commas."),
        "{}{}",
        text(&loaded.stdout),
        text(&loaded.stderr)
    );
}

#[test]
fn an_a2a_agent_over_https_is_pinned_when_its_ca_is_trusted_and_refused_otherwise() {
    let tmp = tempfile::tempdir().unwrap();
    let certs = tmp.path().join("certs");
    fs::create_dir_all(&certs).unwrap();
    certificates(&certs);
    // `carnet serve-a2a` on a free port of loopback, a scripted model (never asked here).
    let script = tmp.path().join("script.json");
    fs::write(&script, r#"{"replies": [{"steps": [{"text": "done"}]}]}"#).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    let content = repo().join("tests/a2a/carnet");
    let server = Command::new(env!("CARGO_BIN_EXE_carnet"))
        .args(["--dir", content.to_str().unwrap(), "serve-a2a", "helper", "--http"])
        .arg(format!("127.0.0.1:{port}"))
        .arg("--model")
        .arg(format!("scripted:{}", script.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _server = Killed(server);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::net::TcpStream::connect(format!("127.0.0.1:{port}")).is_err() {
        assert!(std::time::Instant::now() < deadline, "serve-a2a did not listen");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let (_proxy, https) = proxy(&certs, &port);

    let consumer = tmp.path().join("consumer");
    write_all(
        &consumer,
        &[(
            "toolsets/helper/TOOLSET.md",
            "---\nname: helper\ndescription: An agent over HTTPS\na2a:\n  url: \"${CARNET_TEST_HTTPS}\"\n---\n",
        )],
    );
    let dir = consumer.to_str().unwrap();
    let pin = |roots: &str| carnet(&["--dir", dir, "a2a", "pin"], &https, &certs.join(roots), tmp.path());

    let refused = pin("other-ca.pem");
    assert!(!refused.status.success(), "{}", text(&refused.stdout));
    let why = text(&refused.stderr);
    assert!(why.contains("certificate") && why.contains("UnknownIssuer"), "{why}");
    assert!(!why.contains(&https), "named as written: {why}");

    let pinned = pin("ca.pem");
    assert!(pinned.status.success(), "{}", text(&pinned.stderr));
    let lock = fs::read_to_string(consumer.join("toolsets/helper/a2a.lock.json")).unwrap();
    let lock: serde_json::Value = serde_json::from_str(&lock).unwrap();
    assert_eq!(lock["serverInfo"]["name"], "helper", "{lock}");
    assert!(!lock["tools"].as_array().unwrap().is_empty(), "{lock}");
}
