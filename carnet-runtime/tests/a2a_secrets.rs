//! A task served over A2A never shows a client the resolved URL or headers of a remote
//! toolset's server or A2A peer (`${VAR}` may hold a secret there): the server is named as
//! written in the failure the tool returns, so neither a model that repeats it in its answer nor a model
//! that fails quoting it hands the secret to the client.
#![cfg(all(feature = "a2a", feature = "testing", feature = "remote-a2a"))]

use carnet_runtime::a2a::Server;
use carnet_runtime::chat::{ChatModel, ChatRequest, ChatResponse, Message, ModelError, call};
use carnet_runtime::remote::a2a::pin_card;
use carnet_runtime::{BoxFuture, Carnet, Manifest};
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const VARIABLE: &str = "CARNET_A2A_TEST_SECRET";
const SECRET: &str = "s3cr3t-2f9d71";

/// Agent `a` with skill `far`, bringing toolsets `far` (an MCP server) and `peer` (an A2A
/// agent), both reached at a closed port with the secret in the URL's query and in an
/// `Authorization` header.
fn carnet(port: u16) -> Carnet {
    let server = |path: &str| {
        json!({
            "url": format!("http://127.0.0.1:{port}/{path}?key=${{{VARIABLE}}}"),
            "headers": {"Authorization": format!("Bearer ${{{VARIABLE}}}")}
        })
    };
    let card = json!({
        "name": "peer", "version": "1", "description": "A peer",
        "supportedInterfaces": [{"url": "http://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "skills": [{"id": "ask", "name": "Ask", "description": "Asks", "tags": []}]
    });
    let pinned = pin_card(&card).unwrap();
    let ask = &pinned.json()["tools"][0];
    let manifest = json!({
        "agents": {"a": {"name": "a", "description": "A", "skills": ["far"], "prompt": ""}},
        "skills": {"far": {"name": "far", "description": "Far", "toolsets": ["far", "peer"], "content": ""}},
        "toolsets": {
            "far": {"name": "far", "description": "Far", "content": "",
                "toolDefinitions": [{"name": "lookup", "description": "Looks up",
                                     "remote": {"inputSchema": {"type": "object"}}}],
                "mcp": {"server": server("mcp"), "pin": {"serverInfo": {"name": "far", "version": "1"}}}},
            "peer": {"name": "peer", "description": "Peer", "content": "",
                "toolDefinitions": [{"name": "ask", "description": "Asks",
                                     "remote": {"inputSchema": ask["inputSchema"], "a2a": ask["a2a"]}}],
                "mcp": {"server": server("a2a"), "protocol": "a2a",
                        "pin": {"serverInfo": {"name": "peer", "version": "1"}}}}
        }
    });
    let manifest = Manifest::from_json(&manifest.to_string()).unwrap();
    Carnet::builder(&manifest).build().unwrap()
}

/// Loads `far`, calls `lookup` and `ask`, then answers with what the tools said (`fails`:
/// false) or fails quoting it, as a model (or a client of one) might.
struct Repeater {
    fails: bool,
}

impl ChatModel for Repeater {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let said: Vec<String> = request
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::Tool { output, .. } => Some(serde_json::to_string(output).unwrap()),
                _ => None,
            })
            .collect();
        let steps = request
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();
        let response = match steps {
            0 => Ok(ChatResponse::tool_calls(
                None,
                vec![call(1, "loadSkill", json!({"skillName": "far"}))],
            )),
            1 => Ok(ChatResponse::tool_calls(
                None,
                vec![call(2, "lookup", json!({})), call(3, "ask", json!({"message": "hi"}))],
            )),
            _ if self.fails => Err(ModelError::other(format!("cannot go on after {said:?}"))),
            _ => Ok(ChatResponse::answer(format!("the tools said: {said:?}"))),
        };
        Box::pin(std::future::ready(response))
    }
}

async fn send(addr: std::net::SocketAddr, text: &str) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message":
        {"messageId": format!("m-{text}"), "role": "ROLE_USER", "parts": [{"text": text}]}}})
    .to_string();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response
}

#[test]
fn a_failed_remote_call_names_the_server_as_written_to_the_a2a_client() {
    // The variable is set for this test alone, in a process of its own: setting it here
    // would race the threads that read the environment.
    if std::env::var_os(VARIABLE).is_none() {
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "a_failed_remote_call_names_the_server_as_written_to_the_a2a_client",
            ])
            .env(VARIABLE, SECRET)
            .status()
            .unwrap();
        assert!(status.success(), "the test run with `{VARIABLE}` set failed");
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // A port nothing listens on: the connection is refused.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let carnet = carnet(port);
        for (fails, expected) in [(false, "TASK_STATE_COMPLETED"), (true, "TASK_STATE_FAILED")] {
            let server = Server::new(&carnet, "a", move |_| {
                Ok::<_, ModelError>(Box::new(Repeater { fails }) as Box<dyn ChatModel>)
            })
            .unwrap();
            let http = server.bind("127.0.0.1:0").await.unwrap();
            let addr = http.local_addr().unwrap();
            tokio::spawn(http.run());
            let response = send(addr, "look it up").await;
            assert!(response.contains(expected), "{response}");
            assert!(
                response.contains(&format!("${{{VARIABLE}}}")),
                "the server named as written: {response}"
            );
            assert!(
                response.contains("A2A agent `peer` of toolset `peer`: its card could not be read"),
                "the peer was called: {response}"
            );
            assert!(!response.contains(SECRET), "the secret reached the client: {response}");
        }
    });
}
