//! Client credentials with a private-key JWT (RFC 7523 §2.2, `private_key_jwt`, SEP-1046):
//! carnet signs the client assertion with ring and sends the token request itself. (rmcp's
//! own implementation compiles the AWS-LC C library, and its exchange is not `Send`.)

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom as _, SystemRandom};
use rmcp::transport::auth::OAuthTokenResponse;

use super::key::PrivateKey;

/// `client_assertion_type` of a JWT assertion (RFC 7523 §2.2).
pub(crate) const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// How long an assertion is valid: one token request.
const LIFETIME_SECS: u64 = 60;

/// The longest token response read.
const MAX_RESPONSE_BYTES: usize = 64 << 10;

/// How long the token request may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// The client assertion of `client_id` for `audience` (the authorization server's issuer),
/// signed with `key`, issued at `now` (seconds since the epoch).
pub(crate) fn assertion(client_id: &str, audience: &str, key: &PrivateKey, now: u64) -> Result<String, String> {
    let mut jti = [0_u8; 16];
    SystemRandom::new()
        .fill(&mut jti)
        .map_err(|_| "no randomness for the assertion's `jti`".to_owned())?;
    let header = serde_json::json!({ "alg": key.algorithm().name(), "typ": "JWT" });
    let claims = serde_json::json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "jti": URL_SAFE_NO_PAD.encode(jti),
        "iat": now,
        "exp": now + LIFETIME_SECS,
    });
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature = key.sign(input.as_bytes())?;
    Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature)))
}

/// A client credentials token request authenticated by a signed JWT.
pub(crate) struct Request<'a> {
    /// The MCP server's URL (the resource indicator).
    pub server: &'a str,
    pub client_id: &'a str,
    pub key: &'a PrivateKey,
    pub token_endpoint: &'a str,
    /// The assertion's `aud`: the authorization server's issuer, else its token endpoint.
    pub audience: &'a str,
    pub scopes: &'a [String],
}

/// Seconds since the epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Sends `request` and returns the token response, without its refresh token: a client
/// with a key signs in again rather than refresh.
///
/// # Errors
///
/// The token endpoint is not HTTPS (plain HTTP only when it and the server are on
/// loopback), cannot be reached within 30 s, refuses, or answers other than a token
/// response of at most 64 KiB.
pub(crate) async fn exchange(request: &Request<'_>) -> Result<Token, String> {
    check_endpoint(request.server, request.token_endpoint)?;
    let assertion = assertion(request.client_id, request.audience, request.key, now())?;
    // Finished before any `await`: the serializer is not `Send`.
    let form = {
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        form.append_pair("grant_type", "client_credentials")
            .append_pair("client_assertion_type", ASSERTION_TYPE)
            .append_pair("client_assertion", &assertion)
            .append_pair("resource", request.server);
        if !request.scopes.is_empty() {
            form.append_pair("scope", &request.scopes.join(" "));
        }
        form.finish()
    };
    let client = crate::remote::tls::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(TIMEOUT)
        .build()
        .map_err(|e| format!("no HTTP client: {e}"))?;
    let mut response = client
        .post(request.token_endpoint)
        .header(http::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(http::header::ACCEPT, "application/json")
        .body(form)
        .send()
        .await
        .map_err(|e| format!("the token endpoint could not be reached: {}", e.without_url()))?;
    let status = response.status();
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("the token response was cut: {}", e.without_url()))?
    {
        if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(format!("the token response is over {MAX_RESPONSE_BYTES} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    if !status.is_success() {
        let error = serde_json::from_slice::<serde_json::Value>(&body).ok();
        let field = |name: &str| {
            error
                .as_ref()
                .and_then(|e| e.get(name)?.as_str().map(str::to_owned))
                .unwrap_or_default()
        };
        return Err(format!(
            "the token endpoint refused the client assertion ({status}): {} {}",
            field("error"),
            field("error_description")
        )
        .trim_end()
        .to_owned());
    }
    let mut answer: serde_json::Value =
        serde_json::from_slice(&body).map_err(|e| format!("the token endpoint's answer is not JSON: {e}"))?;
    let granted = answer
        .get("scope")
        .and_then(serde_json::Value::as_str)
        .map(|scope| scope.split_whitespace().map(str::to_owned).collect());
    if let Some(fields) = answer.as_object_mut() {
        fields.remove("refresh_token");
    }
    let token = serde_json::from_value(answer)
        .map_err(|e| format!("the token endpoint's answer is not a token response: {e}"))?;
    Ok(Token { token, granted })
}

/// A token response, with the scopes it says were granted.
pub(crate) struct Token {
    /// The response, without its refresh token.
    pub token: OAuthTokenResponse,
    /// The scopes granted, when the response names them.
    pub granted: Option<Vec<String>>,
}

/// Refuses a token endpoint a JWT must not be sent to in clear: HTTPS, or HTTP on loopback
/// for a server on loopback (local tests).
fn check_endpoint(server: &str, endpoint: &str) -> Result<(), String> {
    let parse = |u: &str| url::Url::parse(u).map_err(|e| format!("`{u}` is not a URL: {e}"));
    let endpoint_url = parse(endpoint)?;
    let loopback = |u: &url::Url| match u.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    let allowed = endpoint_url.scheme() == "https"
        || (endpoint_url.scheme() == "http" && loopback(&endpoint_url) && loopback(&parse(server)?));
    if allowed {
        Ok(())
    } else {
        Err(format!(
            "the token endpoint `{endpoint}` is not HTTPS: a client assertion is not sent in clear"
        ))
    }
}

#[cfg(test)]
mod tests {
    use ring::signature::{self, UnparsedPublicKey, VerificationAlgorithm};
    use serde_json::{Value, json};

    use super::*;

    /// A P-256 key made for these tests only (`openssl ecparam`, then `openssl pkcs8 -topk8`).
    fn ec_key() -> PrivateKey {
        PrivateKey::from_pem(include_str!("testdata/ec-pkcs8.pem")).unwrap()
    }

    fn part(text: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(text).unwrap()).unwrap()
    }

    /// Signs an assertion with `key` and checks it as an authorization server would.
    fn signed_and_verified(key: &PrivateKey, verifier: &'static dyn VerificationAlgorithm) -> Value {
        let jwt = assertion("agent-7", "https://as.example", key, 1_700_000_000).unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3, "{jwt}");
        assert_eq!(part(parts[0]), json!({ "alg": key.algorithm().name(), "typ": "JWT" }));
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        let public = UnparsedPublicKey::new(verifier, key.public_key());
        let input = format!("{}.{}", parts[0], parts[1]);
        public.verify(input.as_bytes(), &signature).unwrap();
        // The signature covers the claims: another audience does not verify.
        let forged = URL_SAFE_NO_PAD.encode(
            serde_json::to_vec(&json!({ "iss": "agent-7", "sub": "agent-7", "aud": "https://evil.example" })).unwrap(),
        );
        assert!(
            public
                .verify(format!("{}.{forged}", parts[0]).as_bytes(), &signature)
                .is_err()
        );
        part(parts[1])
    }

    #[test]
    fn es256_assertion_has_the_claims_and_verifies() {
        let claims = signed_and_verified(&ec_key(), &signature::ECDSA_P256_SHA256_FIXED);
        assert_eq!(claims["iss"], "agent-7");
        assert_eq!(claims["sub"], "agent-7");
        assert_eq!(claims["aud"], "https://as.example");
        assert_eq!(claims["iat"], 1_700_000_000);
        assert_eq!(claims["exp"], 1_700_000_000 + LIFETIME_SECS);
        assert_eq!(claims["jti"].as_str().unwrap().len(), 22, "16 random bytes");
        let again = signed_and_verified(&ec_key(), &signature::ECDSA_P256_SHA256_FIXED);
        assert_ne!(claims["jti"], again["jti"]);
    }

    #[test]
    fn rs256_assertion_verifies() {
        let key = PrivateKey::from_pem(include_str!("testdata/rsa-pkcs8.pem")).unwrap();
        let claims = signed_and_verified(&key, &signature::RSA_PKCS1_2048_8192_SHA256);
        assert_eq!(claims["sub"], "agent-7");
    }

    #[test]
    fn assertions_go_over_https_or_loopback_only() {
        let local = "http://127.0.0.1:3000/mcp";
        check_endpoint(local, "http://localhost:4000/token").unwrap();
        check_endpoint("https://mcp.example/mcp", "https://as.example/token").unwrap();
        let refused = check_endpoint("https://mcp.example/mcp", "http://as.example/token").unwrap_err();
        assert!(refused.contains("not HTTPS"), "{refused}");
        check_endpoint("https://mcp.example/mcp", "http://127.0.0.1:4000/token").unwrap_err();
        assert!(check_endpoint(local, "not a url").unwrap_err().contains("not a URL"));
    }

    #[tokio::test]
    async fn a_plain_http_token_endpoint_is_not_sent_the_assertion() {
        let key = ec_key();
        let request = Request {
            server: "https://mcp.example/mcp",
            client_id: "agent-7",
            key: &key,
            token_endpoint: "http://as.example/token",
            audience: "http://as.example",
            scopes: &[],
        };
        let Err(error) = exchange(&request).await else {
            panic!("sent in clear")
        };
        assert!(error.contains("not HTTPS"), "{error}");
    }
}
