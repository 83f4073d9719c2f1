//! carnet's MCP client as the official conformance suite's client scenarios run it:
//! `conformance client --command "mcp_conformance_client" --scenario NAME` appends the
//! scenario server's URL, and names the scenario (and its credentials, for some) in
//! `MCP_CONFORMANCE_SCENARIO` and `MCP_CONFORMANCE_CONTEXT`.
//!
//! Everything goes through carnet's own client: [`ServerSession`] connects as the engine does
//! (the same connection, sign-in and relay code), signs in when the server answers 401
//! (the suite's authorization servers approve at once: [`Redirects`] takes the redirect
//! they answer with, as the suite's reference clients do), lists the tools and calls each
//! one with arguments made from its schema, answering elicitations with the defaults the
//! request's schema gives. Tokens stay in memory.
//!
//! The enterprise-managed authorization scenario (SEP-990) gives an identity provider and an
//! ID token, the workload identity federation scenario a workload's JWT: the client signs in
//! with them on the server's `401` ([`OAuth::enterprise`], [`OAuth::workload`]).
//!
//! Run by `tests/conformance/run.sh`; by hand:
//!
//! ```text
//! cargo build -p carnet-runtime --features remote-oauth --example mcp_conformance_client
//! node .../conformance/dist/index.js client --scenario auth/metadata-default \
//!     --command target/debug/examples/mcp_conformance_client
//! ```

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use carnet_runtime::RemoteOptions;
use carnet_runtime::remote::Server;
use carnet_runtime::remote::oauth::{
    Client, Enterprise, IdentityProvider, MemoryStore, OAuth, PrivateKey, Redirects, ServerSession, TokenSource,
    Workload,
};
use serde_json::{Map, Value, json};

/// The toolset name the session goes by.
const TOOLSET: &str = "conformance";
/// The client ID metadata document the suite's authorization servers accept.
const METADATA_DOCUMENT: &str = "https://conformance-test.local/client-metadata.json";
/// The tool of `json-schema-2020-12-preservation` whose input schema uses JSON Schema 2020-12
/// (`$schema`, `$defs`, `$anchor`, `allOf`, `if`/`then`/`else`), and the tool that echoes it.
const SCHEMA_TOOL: &str = "json_schema_2020_12_tool";
const SCHEMA_ECHO: &str = "json_schema_echo";
/// The loopback redirect URI the suite's authorization servers redirect to.
const REDIRECT_URI: &str = "http://localhost:3000/callback";

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: mcp_conformance_client URL (MCP_CONFORMANCE_SCENARIO names the scenario)");
        return ExitCode::from(2);
    };
    match run(&url).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &str) -> Result<(), String> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    let field = |name: &str| context[name].as_str().map(str::to_owned);
    let mut oauth = OAuth::new(Arc::new(MemoryStore::default()))
        .authorizer(Arc::new(Redirects::new(REDIRECT_URI, Duration::from_secs(10))))
        .client_name("carnet conformance client")
        .client_metadata_url(METADATA_DOCUMENT);
    if let (Some(id), Some(pem)) = (field("client_id"), field("private_key_pem")) {
        // Client credentials with a private-key JWT (the suite names the algorithm, ES256).
        let key = PrivateKey::from_pem(&pem).map_err(|e| format!("the scenario's private key: {e}"))?;
        oauth = oauth.client_credentials_jwt(TOOLSET, id, key);
    } else if let Some(id) = field("client_id") {
        let client = Client::new(id, field("client_secret"));
        oauth = if scenario.starts_with("auth/client-credentials") {
            oauth.client_credentials(TOOLSET, client)
        } else {
            oauth.preregistered(TOOLSET, client)
        };
    }
    if let (Some(issuer), Some(endpoint), Some(id_token)) =
        (field("idp_issuer"), field("idp_token_endpoint"), field("idp_id_token"))
    {
        // Enterprise-managed authorization: signs in on the server's 401.
        let idp = IdentityProvider::new(
            issuer,
            endpoint,
            Client::new(field("idp_client_id").unwrap_or_default(), None),
        );
        let client = Client::new(field("client_id").unwrap_or_default(), field("client_secret"));
        oauth = oauth.enterprise(TOOLSET, Enterprise::new(idp, TokenSource::new(id_token), client));
    }
    if let (Some(id), Some(jwt)) = (field("client_id"), field("valid_jwt")) {
        // Workload identity federation: the workload's JWT is the grant.
        oauth = oauth.workload(TOOLSET, Workload::new(id, TokenSource::new(jwt)));
    }
    let options = RemoteOptions::default()
        .connect_timeout(Duration::from_secs(20))
        .call_timeout(Duration::from_secs(20))
        .oauth(oauth)
        .on_elicitation(|params: Value| async move {
            Ok(json!({ "action": "accept", "content": defaults(&params["requestedSchema"]) }))
        });
    let server = Server::from_json(&json!({ "url": url })).map_err(|e| e.to_string())?;
    let session = ServerSession::new(TOOLSET, server, options);
    let tools = session.tools().await?;
    eprintln!("listed {} tools", tools.len());
    for tool in &tools {
        let name = tool["name"].as_str().unwrap_or_default();
        let focal = tools.iter().find(|t| t["name"] == SCHEMA_TOOL);
        let arguments = match focal {
            // The schema scenario's echo tool is given back the schema received for its focal
            // tool, as the scenario asks: it compares the two keyword by keyword.
            Some(focal) if name == SCHEMA_ECHO => json!({ "schema": focal["inputSchema"] }),
            _ => arguments(&tool["inputSchema"]),
        };
        let result = session.call(name, arguments).await?;
        eprintln!("called `{name}`: isError {}", result["isError"]);
    }
    Ok(())
}

/// Arguments for a tool with input schema `schema`: each required property a plain value of
/// its type.
fn arguments(schema: &Value) -> Value {
    let mut arguments = Map::new();
    for name in schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let value = match schema["properties"][name]["type"].as_str() {
            Some("number" | "integer") => json!(1),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => json!("test"),
        };
        arguments.insert(name.to_owned(), value);
    }
    Value::Object(arguments)
}

/// The defaults an elicitation's requested schema gives its properties.
fn defaults(schema: &Value) -> Value {
    let properties = schema["properties"].as_object().into_iter().flatten();
    Value::Object(
        properties
            .filter_map(|(name, property)| Some((name.clone(), property.get("default")?.clone())))
            .collect(),
    )
}
