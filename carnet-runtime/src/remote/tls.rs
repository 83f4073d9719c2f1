//! The HTTP clients of remote toolsets: every one carnet builds (a server's streamable HTTP
//! transport, its sign-in, an A2A agent) comes from [`builder`].
//!
//! With feature `remote-tls`, HTTPS uses rustls with the ring provider given to each client
//! ([`reqwest::ClientBuilder::use_preconfigured_tls`]), never the process's default provider:
//! reqwest's `rustls-no-provider` panics when a client is built with no provider installed,
//! and feature unification gives that reqwest to every crate of a build. The roots trusted are
//! the platform's (its certificate store, or `SSL_CERT_FILE` / `SSL_CERT_DIR` when set), as
//! curl and OpenSSL trust them: a private CA is trusted by naming its file there.
//!
//! Without `remote-tls`, an `https://` URL is refused before any request, naming the feature.

use std::fmt::Display;

/// The most redirects one request follows.
const MAX_REDIRECTS: usize = 10;

/// A client builder for a remote toolset's HTTP: HTTPS with the platform's roots (feature
/// `remote-tls`), redirects followed within the first request's origin only (a header given
/// for one server never goes to another).
///
/// With no root to trust, the builder still serves plain HTTP; [`check`] refuses `https://`
/// URLs saying why.
pub(crate) fn builder() -> reqwest::ClientBuilder {
    let builder = reqwest::Client::builder().redirect(same_origin());
    #[cfg(feature = "remote-tls")]
    let builder = builder.use_preconfigured_tls(roots::loaded().0.clone());
    builder
}

/// Refuses `url` when it is HTTPS and this build cannot reach it: no TLS (feature
/// `remote-tls`), or no root certificate to trust. The server is named by `written` (never
/// the URL itself: it may hold a secret).
///
/// # Errors
///
/// `url` is `https://` and feature `remote-tls` is off or no root could be read.
pub(crate) fn check(url: &str, written: &dyn Display) -> Result<(), String> {
    let https = url
        .get(..8)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"));
    if !https {
        return Ok(());
    }
    #[cfg(feature = "remote-tls")]
    if let Some(why) = &roots::loaded().1 {
        return Err(format!("{written} cannot be reached over HTTPS: {why}"));
    }
    if !cfg!(feature = "remote-tls") {
        return Err(format!(
            "{written} is reached over HTTPS, which this build of carnet cannot do: turn on feature `remote-tls` (of carnet or carnet-runtime)"
        ));
    }
    Ok(())
}

/// Makes ring the process's default crypto provider when the process has none (a program that
/// installed its own keeps it), before a crate builds a reqwest client of its own.
///
/// rmcp's `AuthorizationManager::new` builds its reqwest clients itself (its filter of the
/// addresses that discovered metadata may name lives inside them) and takes no TLS
/// configuration, as does the OTLP exporter: with `remote-tls`, reqwest would panic building
/// them with no default provider. carnet's own clients never depend on this.
#[cfg(feature = "remote-tls")]
#[cfg_attr(
    not(feature = "remote-oauth"),
    allow(
        dead_code,
        reason = "sign-in (`remote-oauth`) and the OTLP exporter (`otel`) call it"
    )
)]
pub(crate) fn default_provider_if_none() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Another thread may install one first: either provider serves.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// Follows a redirect to the same scheme, host and port as the request's first URL, at most
/// [`MAX_REDIRECTS`] times; stops at any other (the redirect is answered as it is).
fn same_origin() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let Some(first) = attempt.previous().first() else {
            return attempt.follow();
        };
        let url = attempt.url();
        let same = first.scheme() == url.scheme()
            && first.host_str() == url.host_str()
            && first.port_or_known_default() == url.port_or_known_default();
        if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else if same {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

#[cfg(feature = "remote-tls")]
mod roots {
    use std::sync::{Arc, OnceLock};

    use rustls::ClientConfig;

    /// The TLS configuration of every client, and why no root could be read (the
    /// configuration then trusts none): read once per process (the store holds hundreds of
    /// files; a reconnect does not read them again).
    pub(super) fn loaded() -> &'static (ClientConfig, Option<String>) {
        static LOADED: OnceLock<(ClientConfig, Option<String>)> = OnceLock::new();
        LOADED.get_or_init(|| {
            let (roots, error) = roots();
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let config = ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .expect("ring supports TLS 1.2 and 1.3")
                .with_root_certificates(roots)
                .with_no_client_auth();
            (config, error)
        })
    }

    /// The platform's roots (its store, or `SSL_CERT_FILE` / `SSL_CERT_DIR`), and why there
    /// are none if so.
    fn roots() -> (rustls::RootCertStore, Option<String>) {
        let found = rustls_native_certs::load_native_certs();
        let mut roots = rustls::RootCertStore::empty();
        let (added, _unparsable) = roots.add_parsable_certificates(found.certs);
        if added > 0 {
            return (roots, None);
        }
        let why = found.errors.first().map(|e| format!(" ({e})")).unwrap_or_default();
        let error = format!(
            "there is no root certificate to trust: none could be read from the system's store or SSL_CERT_FILE / SSL_CERT_DIR{why}; set SSL_CERT_FILE to a PEM file of the roots to trust"
        );
        (roots, Some(error))
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    fn built_with_tls() -> bool {
        cfg!(feature = "remote-tls")
    }

    #[test]
    fn https_is_refused_without_the_feature_and_named_as_written() {
        for url in ["https://example.test/mcp?key=secret", "HTTPS://EXAMPLE.TEST"] {
            match check(url, &"${SERVER_URL}") {
                // With `remote-tls`, only a machine with no root certificate refuses it.
                Ok(()) => assert!(built_with_tls(), "{url} passed without `remote-tls`"),
                Err(message) => {
                    let why = if built_with_tls() {
                        "no root certificate to trust"
                    } else {
                        "turn on feature `remote-tls`"
                    };
                    assert!(
                        message.contains(why) && message.starts_with("${SERVER_URL}"),
                        "{message}"
                    );
                    assert!(!message.contains("secret") && !message.contains("EXAMPLE"), "{message}");
                }
            }
        }
        assert!(check("http://127.0.0.1:1/mcp", &"x").is_ok());
    }
}
