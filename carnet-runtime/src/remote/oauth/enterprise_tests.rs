//! Enterprise-managed sign-in against token endpoints that misbehave: clear errors that name
//! the side at fault, no panic, nothing unbounded. (The flow that works is the conformance
//! suite's `auth/enterprise-managed-authorization`, in tests/conformance/run.sh.)

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use super::*;

/// A token endpoint on loopback that answers every request with `status` and `body`; its URL.
async fn endpoint(status: u16, body: Vec<u8>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/token", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let body = body.clone();
            tokio::spawn(async move {
                // The request: its headers and a form far under 64 KiB.
                let mut request = vec![0; 64 << 10];
                let _ = socket.read(&mut request).await;
                let head = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(&body).await;
            });
        }
    });
    url
}

fn enterprise(idp_endpoint: &str, id_token: TokenSource) -> Enterprise {
    let idp = IdentityProvider::new("http://127.0.0.1:1/idp", idp_endpoint, Client::new("idp-client", None));
    Enterprise::new(idp, id_token, Client::new("mcp-client", Some("s3cret".into())))
}

fn resource(token_endpoint: &str) -> ResourceServer {
    ResourceServer {
        issuer: "http://127.0.0.1:2/as".into(),
        token_endpoint: token_endpoint.into(),
        auth_methods: None,
    }
}

/// The error of an exchange whose identity provider answers `status` with `body`.
async fn idp_answers(status: u16, body: Vec<u8>) -> String {
    let url = endpoint(status, body).await;
    let result = enterprise(&url, TokenSource::new("header.claims.signature"))
        .exchange(&resource("http://127.0.0.1:9/token"), "http://127.0.0.1:3/mcp", &[])
        .await;
    let error = result.map(|_| ()).unwrap_err();
    assert!(
        error.starts_with("enterprise-managed sign-in to `http://127.0.0.1:3/mcp`"),
        "{error}"
    );
    assert!(
        !error.contains("header.claims.signature") && !error.contains("s3cret"),
        "{error}"
    );
    error
}

#[tokio::test]
async fn an_identity_provider_answering_garbage_is_named() {
    let error = idp_answers(200, b"<html>sign in</html>".to_vec()).await;
    assert!(
        error.contains("identity provider `http://127.0.0.1:1/idp`") && error.contains("malformed"),
        "{error}"
    );
}

#[tokio::test]
async fn a_huge_answer_is_cut_off() {
    let error = idp_answers(200, vec![b' '; 3 << 20]).await;
    assert!(
        error.contains("identity provider") && error.contains("over 1 MiB"),
        "{error}"
    );
}

#[tokio::test]
async fn a_grant_without_its_token_is_refused() {
    let body = json!({ "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A" });
    let error = idp_answers(200, body.to_string().into_bytes()).await;
    assert!(
        error.contains("identity provider") && error.contains("malformed token response"),
        "{error}"
    );
    // An ID-JAG that is not a JWT, or is bound to another client, is not presented.
    let body = json!({ "access_token": "opaque", "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A" });
    let error = idp_answers(200, body.to_string().into_bytes()).await;
    assert!(error.contains("compact signed JWT"), "{error}");
    let error = idp_answers(200, id_jag_response("another-client").into_bytes()).await;
    assert!(error.contains("mismatch"), "{error}");
}

#[tokio::test]
async fn a_refused_id_token_says_to_get_a_fresh_one() {
    let body = json!({ "error": "invalid_grant", "error_description": "expired" });
    let error = idp_answers(400, body.to_string().into_bytes()).await;
    assert!(
        error.contains("refused the ID token (invalid_grant)") && error.contains("fresh"),
        "{error}"
    );
    let error = idp_answers(503, b"down".to_vec()).await;
    assert!(error.contains("refused (503)"), "{error}");
}

#[tokio::test]
async fn an_authorization_server_answering_garbage_is_named() {
    let idp = endpoint(200, id_jag_response("mcp-client").into_bytes()).await;
    let as_url = endpoint(200, b"{\"access_token\": 7}".to_vec()).await;
    let error = enterprise(&idp, TokenSource::new("id-token"))
        .exchange(&resource(&as_url), "http://127.0.0.1:3/mcp", &[])
        .await
        .map(|_| ())
        .unwrap_err();
    assert!(
        error.contains("authorization server `http://127.0.0.1:2/as`") && error.contains("malformed"),
        "{error}"
    );
}

#[test]
fn id_token_sources_fail_clearly_and_never_show_the_token() {
    let missing = TokenSource::from_file("/nonexistent/carnet/id-token")
        .read()
        .unwrap_err();
    assert!(missing.contains("/nonexistent/carnet/id-token"), "{missing}");
    let unset = TokenSource::from_env("CARNET_TEST_UNSET_ID_TOKEN_VARIABLE")
        .read()
        .unwrap_err();
    assert!(unset.contains("CARNET_TEST_UNSET_ID_TOKEN_VARIABLE"), "{unset}");
    assert!(TokenSource::new("  \n").read().unwrap_err().contains("empty"));
    assert!(
        TokenSource::new("x".repeat(MAX_TOKEN_BYTES + 1))
            .read()
            .unwrap_err()
            .contains("over")
    );
    let dir = std::env::temp_dir().join(format!("carnet-id-token-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("token");
    std::fs::write(&path, "eyJ.token.sig\n").unwrap();
    assert_eq!(TokenSource::from_file(&path).read().unwrap(), "eyJ.token.sig");
    std::fs::write(&path, vec![b'a'; MAX_TOKEN_BYTES + 10]).unwrap();
    assert!(TokenSource::from_file(&path).read().unwrap_err().contains("over"));
    std::fs::remove_dir_all(&dir).unwrap();
    let shown = format!(
        "{:?}",
        enterprise("http://127.0.0.1:1/token", TokenSource::new("eyJ.secret.sig"))
    );
    assert!(!shown.contains("eyJ") && !shown.contains("s3cret"), "{shown}");
}

#[test]
fn client_authentication_follows_what_the_server_advertises() {
    let secret = Client::new("c", Some("s".into()));
    let methods = |m: &[&str]| m.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let shown = |a: EmaClientAuthentication| format!("{a:?}");
    assert!(shown(authentication(&secret, None)).starts_with("ClientSecretBasic"));
    let post = methods(&["client_secret_post"]);
    assert!(shown(authentication(&secret, Some(&post))).starts_with("ClientSecretPost"));
    let both = methods(&["client_secret_post", "client_secret_basic"]);
    assert!(shown(authentication(&secret, Some(&both))).starts_with("ClientSecretBasic"));
    assert_eq!(shown(authentication(&Client::new("c", None), Some(&both))), "None");
}

/// A token-exchange answer whose ID-JAG (unsigned: the client checks its bindings, the
/// authorization server its signature) is issued to `client_id`.
fn id_jag_response(client_id: &str) -> String {
    let part = |value: serde_json::Value| URL_SAFE_NO_PAD.encode(value.to_string());
    let now = jwt::now();
    let jag = format!(
        "{}.{}.{}",
        part(json!({ "alg": "ES256", "typ": "oauth-id-jag+jwt" })),
        part(json!({
            "iss": "http://127.0.0.1:1/idp", "sub": "user", "aud": "http://127.0.0.1:2/as",
            "client_id": client_id, "jti": "j1", "iat": now, "exp": now + 300,
            "resource": "http://127.0.0.1:3/mcp",
        })),
        URL_SAFE_NO_PAD.encode("signature"),
    );
    json!({ "access_token": jag, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A" })
        .to_string()
}

/// The error of a workload's grant at an authorization server answering `status` with `body`.
async fn workload_answered(status: u16, body: Vec<u8>) -> String {
    let url = endpoint(status, body).await;
    let error = Workload::new("ci-job", TokenSource::new("eyJ.workload.sig"))
        .grant(&resource(&url), "http://127.0.0.1:3/mcp", &["tools".to_owned()])
        .await
        .unwrap_err();
    assert!(
        error.contains("authorization server `http://127.0.0.1:2/as`"),
        "{error}"
    );
    assert!(!error.contains("eyJ.workload.sig"), "{error}");
    error
}

#[tokio::test]
async fn a_workload_grant_refused_or_garbled_fails_clearly() {
    let refusal = json!({ "error": "invalid_grant", "error_description": "JWT assertion is expired\n\u{1b}[31m" });
    let error = workload_answered(400, refusal.to_string().into_bytes()).await;
    assert!(
        error.ends_with("(400 Bad Request): invalid_grant JWT assertion is expired[31m"),
        "{error}"
    );
    let error = workload_answered(500, b"<html>".to_vec()).await;
    assert!(error.contains("(500 Internal Server Error): no OAuth error"), "{error}");
    let error = workload_answered(200, b"<html>".to_vec()).await;
    assert!(error.contains("no bearer token"), "{error}");
    let error = workload_answered(200, json!({ "token_type": "Bearer" }).to_string().into_bytes()).await;
    assert!(error.contains("no bearer token"), "{error}");
    let error = workload_answered(200, vec![b' '; 3 << 20]).await;
    assert!(error.contains("over 1048576 bytes"), "{error}");
}

#[tokio::test]
async fn a_workload_grant_keeps_the_token_and_drops_the_refresh_token() {
    let body = json!({ "access_token": "at-1", "token_type": "Bearer", "expires_in": 60, "refresh_token": "rt" });
    let url = endpoint(200, body.to_string().into_bytes()).await;
    let answer = Workload::new("ci-job", TokenSource::new("eyJ.workload.sig"))
        .grant(&resource(&url), "http://127.0.0.1:3/mcp", &[])
        .await
        .unwrap();
    assert_eq!(
        answer,
        json!({ "access_token": "at-1", "token_type": "Bearer", "expires_in": 60 })
    );
}

#[tokio::test]
async fn a_workload_token_is_not_sent_in_clear_off_loopback() {
    let error = Workload::new("ci-job", TokenSource::new("eyJ.workload.sig"))
        .grant(&resource("http://as.example/token"), "https://mcp.example/mcp", &[])
        .await
        .unwrap_err();
    assert!(
        error.contains("not HTTPS") && error.contains("http://as.example/token"),
        "{error}"
    );
}

#[tokio::test]
async fn a_token_is_stored_where_the_engine_finds_it() {
    use crate::remote::oauth::MemoryStore;
    let oauth = OAuth::new(std::sync::Arc::new(MemoryStore::default()));
    let server = "http://127.0.0.1:3/mcp";
    for response in [
        json!({ "access_token": "at-1", "token_type": "bearer", "expires_in": 60 }),
        json!({ "access_token": "at-2", "token_type": "bearer" }),
    ] {
        let granted = store(
            &oauth,
            server,
            "ci-job",
            response,
            vec!["tools".into()],
            "http://127.0.0.1:2/as".into(),
        )
        .await
        .unwrap();
        assert_eq!(granted, ["tools"]);
        let entry = Entry {
            store: std::sync::Arc::clone(&oauth.store),
            server: server.to_owned(),
        };
        let stored = entry.load().await.unwrap().expect("a stored token");
        let shown: serde_json::Value = serde_json::to_value(&stored).unwrap();
        assert_eq!(shown["client_id"], "ci-job");
        assert_eq!(shown["issuer"], "http://127.0.0.1:2/as");
        assert!(shown["token_response"]["refresh_token"].is_null(), "{shown}");
        assert!(oauth.store.load(server).unwrap().is_some());
    }
    let error = store(
        &oauth,
        server,
        "c",
        json!({ "token_type": "bearer" }),
        vec![],
        "i".into(),
    )
    .await
    .unwrap_err();
    assert!(error.contains("cannot be stored"), "{error}");
}
