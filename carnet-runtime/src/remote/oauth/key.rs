//! The private key a client signs its JWT assertions with (RFC 7523 `private_key_jwt`):
//! read from PEM, kept by ring, never shown.

use std::fmt;
use std::sync::Arc;

use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, RsaKeyPair};

/// The longest PEM text read (a 4096-bit RSA key is about 3.3 KiB).
const MAX_PEM_BYTES: usize = 16 << 10;

/// A JWS signing algorithm carnet signs client assertions with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// ECDSA on P-256 with SHA-256.
    Es256,
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
}

impl Algorithm {
    /// The algorithm's JWS name (`alg`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Es256 => "ES256",
            Algorithm::Rs256 => "RS256",
        }
    }
}

enum Pair {
    Ec(EcdsaKeyPair),
    Rsa(RsaKeyPair),
}

/// A private key for client authentication with a signed JWT: a P-256 key (ES256) or an
/// RSA key (RS256). `Debug` shows its algorithm only; the key is never logged.
#[derive(Clone)]
pub struct PrivateKey {
    pair: Arc<Pair>,
    /// The DER the key was read from (for equality only).
    der: Arc<[u8]>,
}

impl PrivateKey {
    /// Reads a key from PEM: `PRIVATE KEY` (PKCS#8, P-256 or RSA) or `RSA PRIVATE KEY`
    /// (PKCS#1).
    ///
    /// # Errors
    ///
    /// The text is over 16 KiB, holds no PEM block or a malformed one, is encrypted or SEC1
    /// (`EC PRIVATE KEY`: convert it with `openssl pkcs8 -topk8 -nocrypt`), or holds a key
    /// of another kind (only P-256 and RSA keys sign).
    pub fn from_pem(pem: &str) -> Result<Self, String> {
        if pem.len() > MAX_PEM_BYTES {
            return Err(format!("the PEM text is over {MAX_PEM_BYTES} bytes"));
        }
        let (label, der) = pem_block(pem)?;
        let pair = match label {
            "PRIVATE KEY" => {
                if let Ok(pair) =
                    EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &der, &SystemRandom::new())
                {
                    Pair::Ec(pair)
                } else {
                    Pair::Rsa(
                        RsaKeyPair::from_pkcs8(&der)
                            .map_err(|e| format!("the PKCS#8 key is neither a P-256 nor a usable RSA key ({e})"))?,
                    )
                }
            }
            "RSA PRIVATE KEY" => {
                Pair::Rsa(RsaKeyPair::from_der(&der).map_err(|e| format!("the RSA key cannot be used ({e})"))?)
            }
            "EC PRIVATE KEY" => {
                return Err("the key is SEC1 (`EC PRIVATE KEY`); give it as PKCS#8 \
                            (`openssl pkcs8 -topk8 -nocrypt -in KEY`)"
                    .to_owned());
            }
            "ENCRYPTED PRIVATE KEY" => return Err("the key is encrypted; give it decrypted".to_owned()),
            other => return Err(format!("a `{other}` PEM block is not a private key")),
        };
        Ok(PrivateKey {
            pair: Arc::new(pair),
            der: der.into(),
        })
    }

    /// The algorithm this key signs with.
    #[must_use]
    pub fn algorithm(&self) -> Algorithm {
        match *self.pair {
            Pair::Ec(_) => Algorithm::Es256,
            Pair::Rsa(_) => Algorithm::Rs256,
        }
    }

    /// Signs `message` (a JWS signing input); the signature as JWS wants it (ES256: `r || s`).
    pub(crate) fn sign(&self, message: &[u8]) -> Result<Vec<u8>, String> {
        let rng = SystemRandom::new();
        match &*self.pair {
            Pair::Ec(pair) => pair
                .sign(&rng, message)
                .map(|s| s.as_ref().to_vec())
                .map_err(|_| "ES256 signing failed".to_owned()),
            Pair::Rsa(pair) => {
                let mut out = vec![0; pair.public().modulus_len()];
                pair.sign(&signature::RSA_PKCS1_SHA256, &rng, message, &mut out)
                    .map_err(|_| "RS256 signing failed".to_owned())?;
                Ok(out)
            }
        }
    }

    /// The public key's bytes as ring verifies with them (tests).
    #[cfg(test)]
    pub(crate) fn public_key(&self) -> Vec<u8> {
        use ring::signature::KeyPair as _;
        match &*self.pair {
            Pair::Ec(pair) => pair.public_key().as_ref().to_vec(),
            Pair::Rsa(pair) => pair.public_key().as_ref().to_vec(),
        }
    }
}

/// The label and decoded body of the first PEM block in `pem`.
fn pem_block(pem: &str) -> Result<(&str, Vec<u8>), String> {
    let start = pem
        .find("-----BEGIN ")
        .ok_or("no PEM block (`-----BEGIN ...-----`) in the text")?;
    let rest = &pem[start + "-----BEGIN ".len()..];
    let label_end = rest.find("-----").ok_or("the PEM header is not closed")?;
    let label = &rest[..label_end];
    let body = &rest[label_end + "-----".len()..];
    let end = format!("-----END {label}-----");
    let body_end = body
        .find(&end)
        .ok_or_else(|| format!("the PEM block `{label}` has no `{end}` line"))?;
    let text: String = body[..body_end].chars().filter(|c| !c.is_ascii_whitespace()).collect();
    if text.contains(':') {
        return Err(format!(
            "the PEM block `{label}` has headers (an encrypted key?); give it decrypted"
        ));
    }
    let der = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| format!("the PEM block `{label}` is not base64: {e}"))?;
    Ok((label, der))
}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrivateKey")
            .field("algorithm", &self.algorithm())
            .finish_non_exhaustive()
    }
}

impl PartialEq for PrivateKey {
    fn eq(&self, other: &Self) -> bool {
        self.der == other.der
    }
}

impl Eq for PrivateKey {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys made for these tests only (`openssl genpkey`), never used elsewhere.
    const RSA_PKCS8: &str = include_str!("testdata/rsa-pkcs8.pem");
    const RSA_PKCS1: &str = include_str!("testdata/rsa-pkcs1.pem");
    const EC_SEC1: &str = include_str!("testdata/ec-sec1.pem");

    /// `der` as a PEM block labelled `label`.
    fn pem(label: &str, der: &[u8]) -> String {
        let text = base64::engine::general_purpose::STANDARD.encode(der);
        let lines: Vec<&str> = text
            .as_bytes()
            .chunks(64)
            .map(|l| std::str::from_utf8(l).unwrap())
            .collect();
        format!("-----BEGIN {label}-----\n{}\n-----END {label}-----\n", lines.join("\n"))
    }

    #[test]
    fn reads_p256_and_rsa_keys() {
        let rng = SystemRandom::new();
        let ec = EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let ec = PrivateKey::from_pem(&format!("a comment\n{}", pem("PRIVATE KEY", ec.as_ref()))).unwrap();
        assert_eq!(ec.algorithm(), Algorithm::Es256);
        let pkcs8 = PrivateKey::from_pem(RSA_PKCS8).unwrap();
        let pkcs1 = PrivateKey::from_pem(RSA_PKCS1).unwrap();
        assert_eq!(
            (pkcs8.algorithm(), pkcs1.algorithm()),
            (Algorithm::Rs256, Algorithm::Rs256)
        );
        assert_eq!(pkcs8.public_key(), pkcs1.public_key());
        assert_eq!(pkcs8, pkcs8.clone());
        assert_ne!(pkcs8, pkcs1, "equality is of the text read");
    }

    #[test]
    fn debug_shows_no_key() {
        let key = PrivateKey::from_pem(RSA_PKCS8).unwrap();
        let shown = format!("{key:?}");
        assert_eq!(shown, "PrivateKey { algorithm: Rs256, .. }");
        let body: String = RSA_PKCS8.lines().nth(1).unwrap().chars().take(16).collect();
        assert!(!shown.contains(&body));
    }

    #[test]
    fn bad_pem_is_refused_with_a_reason() {
        let error = |pem: &str| PrivateKey::from_pem(pem).unwrap_err();
        assert!(error("").contains("no PEM block"));
        assert!(error("-----BEGIN PRIVATE KEY").contains("not closed"));
        assert!(error("-----BEGIN PRIVATE KEY-----\nAAAA\n").contains("no `-----END PRIVATE KEY-----`"));
        assert!(error("-----BEGIN PRIVATE KEY-----\n*!*\n-----END PRIVATE KEY-----").contains("not base64"));
        assert!(error(&pem("PRIVATE KEY", b"not a key")).contains("neither a P-256 nor"));
        assert!(error(&pem("RSA PRIVATE KEY", b"not a key")).contains("cannot be used"));
        assert!(error(EC_SEC1).contains("openssl pkcs8 -topk8"));
        assert!(error(&pem("ENCRYPTED PRIVATE KEY", b"x")).contains("encrypted"));
        let headers = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nAAAA\n-----END RSA PRIVATE KEY-----";
        assert!(error(headers).contains("headers"));
        assert!(error(&pem("CERTIFICATE", b"x")).contains("not a private key"));
        let huge = format!("{}{RSA_PKCS8}", " ".repeat(MAX_PEM_BYTES));
        assert!(error(&huge).contains("over 16384 bytes"));
    }
}
