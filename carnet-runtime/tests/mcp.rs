//! `carnet_runtime::mcp` at the JSON-RPC level: a client written here speaks newline-delimited
//! JSON-RPC to [`Server::serve`] over an in-memory pipe, and raw HTTP/1.1 to
//! [`Server::bind_http`]. (The official Python SDK drives the example server in
//! `tests/mcp/e2e.py`.)

use std::time::Duration;

use carnet_runtime::mcp::{DEFAULT_MAX_MESSAGE_BYTES, Server};
use carnet_runtime::{Carnet, ExposureMode, Manifest, ToolError, ToolImpl, ToolsetImpl};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream};

const MANIFEST: &str = r##"{
  "variables": { "ORG": "Carnet Labs" },
  "agents": {
    "researcher": { "name": "researcher", "description": "Researches",
      "initialSkills": ["webSearch"], "skills": ["dataAnalysis"],
      "prompt": "You are a researcher working for {{ ORG }}." },
    "analyst": { "name": "analyst", "description": "Analyses", "skills": [], "prompt": "You analyse." }
  },
  "skills": {
    "webSearch": { "name": "webSearch", "description": "Search the web", "toolsets": ["search-tools"],
      "content": "# Web search\n\nSearch first." },
    "dataAnalysis": { "name": "dataAnalysis", "description": "Analyse data", "toolsets": ["statistics"],
      "license": "MIT", "metadata": { "author": "carnet" },
      "content": "# Data analysis\n\nUse the statistics tools.",
      "files": [
        { "path": "guide.md", "description": "How to analyse", "content": "# Guide\n" },
        { "path": "logo.png", "description": "The logo", "content": "AAEC/w==", "encoding": "base64", "mediaType": "image/png" }
      ] }
  },
  "toolsets": {
    "search-tools": { "name": "search-tools", "description": "Search", "content": "", "tools": [
      { "name": "basicSearch", "description": "Basic search" } ] },
    "statistics": { "name": "statistics", "description": "Statistics", "content": "", "tools": [
      { "name": "stats.mean", "description": "The mean of numbers" },
      { "name": "fail", "description": "Always fails" } ] }
  }
}"##;

fn carnet(mode: ExposureMode) -> Carnet {
    let manifest = Manifest::from_json(MANIFEST).unwrap();
    let search = ToolImpl::from_fn(
        "basicSearch",
        json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
        |args| async move { Ok(json!({ "hits": [args["query"].as_str().unwrap_or_default()] })) },
    );
    let mean = ToolImpl::from_fn(
        "stats.mean",
        json!({"type": "object", "properties": {"values": {"type": "array", "items": {"type": "number"}}},
               "required": ["values"]}),
        |args| async move {
            let values: Vec<f64> = args["values"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_f64)
                .collect();
            let count: f64 = values.iter().map(|_| 1.0).sum();
            Ok(json!({ "mean": values.iter().sum::<f64>() / count }))
        },
    )
    .with_output_schema(mean_schema());
    let fail = ToolImpl::from_fn("fail", json!({"type": "object"}), |_| async move {
        Err::<Value, _>(
            ToolError::new("the disk is full")
                .with_code("disk_full")
                .with_data(json!({"free": 0})),
        )
    });
    Carnet::builder(&manifest)
        .toolsets([
            ToolsetImpl::new("search-tools", [search]),
            ToolsetImpl::new("statistics", [mean, fail]),
        ])
        .mode(mode)
        .build()
        .unwrap()
}

fn mean_schema() -> Value {
    json!({"type": "object", "properties": {"mean": {"type": "number"}}, "required": ["mean"], "additionalProperties": false})
}

/// A client on the other end of a pipe served by [`Server::serve`].
struct Client {
    write: tokio::io::WriteHalf<DuplexStream>,
    read: BufReader<tokio::io::ReadHalf<DuplexStream>>,
    next_id: u64,
    /// Notifications received while waiting for responses.
    notifications: Vec<Value>,
}

impl Client {
    /// A client on `ours`, the other end of which is served by `serve`.
    fn connect(ours: DuplexStream) -> Client {
        let (read, write) = tokio::io::split(ours);
        Client {
            write,
            read: BufReader::new(read),
            next_id: 0,
            notifications: Vec::new(),
        }
    }

    fn start(server: &Server) -> Client {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(theirs);
        let server = server.clone();
        tokio::spawn(async move { server.serve(read, write).await });
        Client::connect(ours)
    }

    /// The `initialize` handshake; returns its result.
    async fn initialize(&mut self) -> Value {
        let init = self
            .request(
                "initialize",
                json!({ "protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": { "name": "test", "version": "0" } }),
            )
            .await;
        self.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        init
    }

    async fn initialized(server: &Server) -> (Client, Value) {
        let mut client = Client::start(server);
        let init = client.initialize().await;
        (client, init)
    }

    async fn send_line(&mut self, line: &str) {
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
        self.write.flush().await.unwrap();
    }

    async fn read_message(&mut self) -> Value {
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(10), self.read.read_line(&mut line))
            .await
            .expect("the server answers within 10 s")
            .unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Sends a request and returns its whole response (`result` or `error`).
    async fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.send_line(&request.to_string()).await;
        loop {
            let message = self.read_message().await;
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            assert!(message.get("id").is_none(), "unexpected response: {message}");
            self.notifications.push(message);
        }
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.call(method, params).await;
        assert!(response.get("error").is_none(), "{method} failed: {response}");
        response["result"].clone()
    }

    async fn tool_names(&mut self) -> Vec<String> {
        let result = self.request("tools/list", json!({})).await;
        result["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    }

    async fn call_tool(&mut self, name: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({ "name": name, "arguments": arguments }))
            .await
    }
}

const META: [&str; 6] = [
    "listAvailableSkills",
    "loadSkill",
    "listSkillToolsets",
    "loadToolset",
    "loadTool",
    "loadSkillFile",
];

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test]
async fn initialize_negotiates_a_revision_with_sessions_and_sends_the_prompt_as_instructions() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    let (_, init) = Client::initialized(&server).await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    // Named after the agent; without a `version` in its frontmatter, the content's fingerprint.
    let fingerprint = format!("{:016x}", Manifest::from_json(MANIFEST).unwrap().fingerprint);
    assert_eq!(init["serverInfo"]["name"], "researcher");
    assert_eq!(init["serverInfo"]["version"], fingerprint.as_str());
    assert_eq!(init["capabilities"]["completions"], json!({}));
    assert_eq!(init["capabilities"]["tools"]["listChanged"], true);
    assert!(init["capabilities"]["extensions"]["io.modelcontextprotocol/skills"].is_object());
    let instructions = init["instructions"].as_str().unwrap();
    assert!(instructions.starts_with("You are a researcher working for Carnet Labs."));
    assert!(
        instructions.contains("dataAnalysis"),
        "the catalog is in the instructions"
    );

    // A client asking for the stateless revision is answered with the newest one that has
    // sessions, which it may accept or refuse.
    let mut client = Client::start(&server);
    let init = client
        .request(
            "initialize",
            json!({ "protocolVersion": "2026-07-28", "capabilities": {},
                    "clientInfo": { "name": "test", "version": "0" } }),
        )
        .await;
    assert_eq!(init["protocolVersion"], "2025-11-25");

    // 2025-03-26 asks for JSON-RPC batches, which this server does not take.
    let mut client = Client::start(&server);
    let init = client
        .request(
            "initialize",
            json!({ "protocolVersion": "2025-03-26", "capabilities": {},
                    "clientInfo": { "name": "test", "version": "0" } }),
        )
        .await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn dynamic_mode_grows_the_tool_list_and_notifies_before_the_result() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    let (mut client, _) = Client::initialized(&server).await;
    let mut expected = names(&META);
    expected.push("basicSearch".into());
    assert_eq!(client.tool_names().await, expected);

    let result = client
        .call_tool("loadSkill", json!({ "skillName": "dataAnalysis" }))
        .await;
    assert_eq!(result["isError"], false);
    assert!(
        result["structuredContent"]["content"]
            .as_str()
            .unwrap()
            .contains("# Data analysis")
    );
    assert_eq!(
        client.notifications,
        [json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" })],
        "the notification arrives before the call's response"
    );
    // `stats.mean` is listed under its alias; both names call it.
    expected.extend(["stats_mean".into(), "fail".into()]);
    assert_eq!(client.tool_names().await, expected);
    for name in ["stats_mean", "stats.mean"] {
        let result = client.call_tool(name, json!({ "values": [1, 2, 6] })).await;
        assert_eq!(result["isError"], false, "{result}");
        assert_eq!(result["structuredContent"], json!({ "mean": 3.0 }));
        assert_eq!(result["content"][0]["text"], r#"{"mean":3.0}"#);
    }

    // Loading it again changes nothing: no notification.
    client.notifications.clear();
    client
        .call_tool("loadSkill", json!({ "skillName": "dataAnalysis" }))
        .await;
    assert!(client.notifications.is_empty(), "{:?}", client.notifications);
}

#[tokio::test]
async fn dispatcher_mode_keeps_the_tool_list_fixed_and_calls_through_call_tool() {
    let server = Server::new(&carnet(ExposureMode::Dispatcher), "researcher").unwrap();
    let (mut client, init) = Client::initialized(&server).await;
    assert_eq!(init["capabilities"]["tools"]["listChanged"], false);
    let before = client.tool_names().await;
    let mut expected = names(&META);
    expected.push("callTool".into());
    assert_eq!(before, expected);

    let result = client
        .call_tool("loadSkill", json!({ "skillName": "dataAnalysis" }))
        .await;
    assert_eq!(result["isError"], false);
    let specs = result["structuredContent"]["toolSpecs"].to_string();
    assert!(
        specs.contains("stats.mean"),
        "loaded schemas arrive in the result: {specs}"
    );
    assert!(client.notifications.is_empty(), "{:?}", client.notifications);
    assert_eq!(client.tool_names().await, before);

    let result = client
        .call_tool(
            "callTool",
            json!({ "name": "stats.mean", "arguments": { "values": [2, 4] } }),
        )
        .await;
    assert_eq!(result["structuredContent"], json!({ "mean": 3.0 }), "{result}");
}

#[tokio::test]
async fn failures_are_results_the_model_reads() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    let (mut client, _) = Client::initialized(&server).await;

    let unexposed = client.call_tool("stats_mean", json!({ "values": [1] })).await;
    assert_eq!(unexposed["isError"], true);
    let message = unexposed["structuredContent"]["error"].as_str().unwrap();
    assert!(message.contains("dataAnalysis"), "names the skill to load: {message}");

    let unknown = client.call_tool("nope", json!({})).await;
    assert_eq!(unknown["isError"], true);

    client
        .call_tool("loadSkill", json!({ "skillName": "dataAnalysis" }))
        .await;
    let bad = client.call_tool("stats_mean", json!({ "values": "many" })).await;
    assert_eq!(bad["isError"], true);
    assert_eq!(bad["structuredContent"]["field"], "/values", "{bad}");

    let failed = client.call_tool("fail", json!({})).await;
    assert_eq!(failed["isError"], true);
    assert!(
        failed["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("the disk is full")
    );
    // A typed error reaches structuredContent with its code and data.
    assert_eq!(
        failed["structuredContent"],
        json!({"success": false, "error": "the disk is full", "tool": "fail", "code": "disk_full", "data": {"free": 0}})
    );
}

#[tokio::test]
async fn connections_have_their_own_sessions() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    let (mut first, _) = Client::initialized(&server).await;
    let (mut second, _) = Client::initialized(&server).await;
    first
        .call_tool("loadSkill", json!({ "skillName": "dataAnalysis" }))
        .await;
    assert!(first.tool_names().await.contains(&"stats_mean".to_owned()));
    assert!(!second.tool_names().await.contains(&"stats_mean".to_owned()));
    assert!(second.notifications.is_empty());
}

#[tokio::test]
async fn the_system_prompt_is_a_prompt_that_follows_the_session() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    let (mut client, _) = Client::initialized(&server).await;
    let list = client.request("prompts/list", json!({})).await;
    assert_eq!(list["prompts"][0]["name"], "researcher");
    assert_eq!(list["prompts"][0]["arguments"][0]["name"], "ORG");
    assert_eq!(list["prompts"][0]["arguments"][0]["required"], false);

    let text = |result: &Value| result["messages"][0]["content"]["text"].as_str().unwrap().to_owned();
    let before = text(&client.request("prompts/get", json!({ "name": "researcher" })).await);
    assert!(before.starts_with("You are a researcher working for Carnet Labs."));
    client
        .call_tool("loadSkill", json!({ "skillName": "dataAnalysis" }))
        .await;
    let after = client
        .request(
            "prompts/get",
            json!({ "name": "researcher", "arguments": { "ORG": "Acme" } }),
        )
        .await;
    assert_eq!(after["messages"][0]["role"], "user");
    let after = text(&after);
    assert!(after.starts_with("You are a researcher working for Acme."));
    assert!(!before.contains("**stats.mean**"));
    assert!(
        after.contains("**stats.mean**"),
        "the loaded skill's tools are in the prompt: {after}"
    );

    let missing = client.call("prompts/get", json!({ "name": "analyst" })).await;
    assert_eq!(missing["error"]["code"], -32602);
}

#[tokio::test]
async fn skill_files_are_resources_binary_ones_as_blobs() {
    let carnet = carnet(ExposureMode::Dynamic);
    let server = Server::new(&carnet, "researcher").unwrap();
    let (mut client, _) = Client::initialized(&server).await;
    let list = client.request("resources/list", json!({})).await;
    let uris: Vec<&str> = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "skill://dataAnalysis/SKILL.md",
            "skill://dataAnalysis/guide.md",
            "skill://dataAnalysis/logo.png",
            "skill://webSearch/SKILL.md",
        ]
    );
    assert_eq!(list["resources"][2]["mimeType"], "image/png");
    assert_eq!(list["resources"][2]["size"], 4);
    assert_eq!(list["resources"][2]["description"], "The logo");

    let guide = client
        .request("resources/read", json!({ "uri": "skill://dataAnalysis/guide.md" }))
        .await;
    assert_eq!(guide["contents"][0]["text"], "# Guide\n");
    let logo = client
        .request("resources/read", json!({ "uri": "skill://dataAnalysis/logo.png" }))
        .await;
    assert_eq!(logo["contents"][0]["blob"], "AAEC/w==");
    assert_eq!(logo["contents"][0]["mimeType"], "image/png");
    let skill = client
        .request("resources/read", json!({ "uri": "skill://dataAnalysis/SKILL.md" }))
        .await;
    let expected = carnet.manifest().skill("dataAnalysis").unwrap().to_skill_md();
    assert_eq!(skill["contents"][0]["text"], expected);
    assert_eq!(
        expected,
        "---\nname: \"dataAnalysis\"\ndescription: \"Analyse data\"\nlicense: \"MIT\"\n\
         metadata: {\"author\":\"carnet\"}\ntoolsets: [\"statistics\"]\n---\n\n\
         # Data analysis\n\nUse the statistics tools.\n"
    );

    let missing = client
        .call("resources/read", json!({ "uri": "skill://dataAnalysis/nope.md" }))
        .await;
    assert_eq!(missing["error"]["code"], -32002);

    // The analyst reaches no skill.
    let analyst = Server::new(&carnet, "analyst").unwrap();
    let (mut client, _) = Client::initialized(&analyst).await;
    let list = client.request("resources/list", json!({})).await;
    assert_eq!(list["resources"], json!([]));
}

/// The digest as the Skills extension writes it, computed independently of the server.
fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .fold(String::from("sha256:"), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
}

#[tokio::test]
async fn the_skills_extension_lists_every_file_with_its_digest() {
    let carnet = carnet(ExposureMode::Dynamic);
    let server = Server::new(&carnet, "researcher").unwrap();
    let (mut client, _) = Client::initialized(&server).await;
    let list = client.request("skills/list", json!({})).await;
    let skills = list["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 2);
    let data = &skills[0];
    assert_eq!(data["uri"], "skill://dataAnalysis/SKILL.md");
    assert_eq!(
        data["frontmatter"],
        json!({ "name": "dataAnalysis", "description": "Analyse data", "license": "MIT",
                "metadata": { "author": "carnet" }, "toolsets": ["statistics"] })
    );
    let skill_md = carnet.manifest().skill("dataAnalysis").unwrap().to_skill_md();
    assert_eq!(
        data["resources"],
        json!([
            { "uri": "skill://dataAnalysis/SKILL.md", "digest": sha256(skill_md.as_bytes()), "size": skill_md.len() },
            { "uri": "skill://dataAnalysis/guide.md", "digest": sha256(b"# Guide\n"), "size": 8 },
            { "uri": "skill://dataAnalysis/logo.png", "digest": sha256(&[0, 1, 2, 255]), "size": 4 },
        ])
    );
    let one = client
        .request("skills/get", json!({ "uri": "skill://dataAnalysis/SKILL.md" }))
        .await;
    assert_eq!(&one["skill"], data);
    let missing = client
        .call("skills/get", json!({ "uri": "skill://dataAnalysis/guide.md" }))
        .await;
    assert_eq!(missing["error"]["code"], -32602);
}

#[tokio::test]
async fn unreadable_lines_get_protocol_errors_and_the_connection_goes_on() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher")
        .unwrap()
        .max_message_bytes(1024);
    let (mut client, _) = Client::initialized(&server).await;

    client
        .send_line(r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list""#)
        .await;
    let error = client.read_message().await;
    assert_eq!(
        error.get("id"),
        Some(&Value::Null),
        "JSON-RPC asks for `\"id\": null`: {error}"
    );
    assert_eq!(error["error"]["code"], -32700, "{error}");

    // A method this server serves, with params it cannot read: invalid params, with the id.
    let error = client.call("tools/call", json!({ "arguments": {} })).await;
    assert_eq!(error["error"]["code"], -32602, "{error}");
    assert!(
        error["error"]["message"].as_str().unwrap().contains("`name`"),
        "{error}"
    );
    let error = client.call("tools/teleport", json!({})).await;
    assert_eq!(error["error"]["code"], -32601, "{error}");

    client.send_line(r#"{"foo": 1}"#).await;
    let error = client.read_message().await;
    assert_eq!(error["id"], Value::Null);
    assert_eq!(error["error"]["code"], -32600, "{error}");

    client.send_line(&format!(r#"{{"pad": "{}"}}"#, "x".repeat(4096))).await;
    let error = client.read_message().await;
    assert_eq!(error["error"]["code"], -32600, "{error}");
    assert!(
        error["error"]["message"].as_str().unwrap().contains("1024 bytes"),
        "{error}"
    );

    // A request that is not JSON-RPC 2.0 but has an id is answered with that id; a response
    // rmcp cannot read gets no answer.
    client
        .send_line(r#"{"jsonrpc": "1.0", "id": 7, "method": "ping"}"#)
        .await;
    let error = client.read_message().await;
    assert_eq!(
        (&error["id"], &error["error"]["code"]),
        (&json!(7), &json!(-32600)),
        "{error}"
    );
    client
        .send_line(r#"{"jsonrpc": "2.0", "id": 99, "result": {"odd": true}, "error": 1}"#)
        .await;

    // Unknown notifications get no answer; blank lines are skipped.
    client
        .send_line(r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#)
        .await;
    client.send_line("").await;
    assert!(client.tool_names().await.contains(&"basicSearch".to_owned()));
    let result = client.call_tool("basicSearch", json!({ "query": "rust" })).await;
    assert_eq!(result["structuredContent"], json!({ "hits": ["rust"] }));
    assert!(client.notifications.is_empty(), "{:?}", client.notifications);
}

/// One HTTP/1.1 exchange on a fresh connection: the status and body.
#[cfg(feature = "mcp-http")]
async fn http_post(addr: std::net::SocketAddr, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
    use tokio::io::AsyncReadExt as _;
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        addr.ip(),
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    // The server may answer (413) before the whole body is sent.
    let _ = stream.write_all(body).await;
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response))
        .await
        .expect("the server answers within 10 s")
        .unwrap();
    let response = String::from_utf8_lossy(&response).into_owned();
    let status = response[9..12].parse().unwrap();
    let body = response.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_owned();
    (status, body)
}

#[cfg(feature = "mcp-http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_answers_malformed_and_oversized_bodies_with_json_rpc_errors() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher")
        .unwrap()
        .max_message_bytes(64 * 1024);
    let http = server.bind_http("127.0.0.1:0").await.unwrap();
    let addr = http.local_addr().unwrap();
    assert_eq!(http.url(), format!("http://{addr}/mcp"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(http.run_until(async {
        let _ = stopped.await;
    }));

    let (status, body) = http_post(addr, &[], b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\"").await;
    assert_eq!(status, 400);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["code"], -32700);
    assert_eq!(body["id"], Value::Null);

    let (status, body) = http_post(addr, &[], br#"{"foo": 1}"#).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["error"]["code"], -32600);

    let big = format!(r#"{{"pad": "{}"}}"#, "x".repeat(100 * 1024));
    let (status, body) = http_post(addr, &[], big.as_bytes()).await;
    assert_eq!(status, 413);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["code"], -32600);
    assert!(body["error"]["message"].as_str().unwrap().contains("65536 bytes"));

    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"POST /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
        .await
        .unwrap();
    let mut response = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut stream, &mut response)
        .await
        .unwrap();
    assert!(response.starts_with("HTTP/1.1 404"), "{response}");
    assert!(response.contains("it is at `/mcp`"), "{response}");

    // Still serving: a session starts.
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } } });
    let (status, body) = http_post(addr, &[], init.to_string().as_bytes()).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"protocolVersion\":\"2025-11-25\""), "{body}");

    stop.send(()).unwrap();
    serving.await.unwrap().unwrap();
}

#[cfg(feature = "mcp-http")]
#[tokio::test]
async fn http_binds_loopback_addresses_only() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    let error = server.bind_http("0.0.0.0:0").await.unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert!(error.to_string().contains("not a loopback address"), "{error}");
    assert!(server.bind_http("[::1]:0").await.is_ok() || server.bind_http("localhost:0").await.is_ok());
}

#[test]
fn unknown_agents_are_refused() {
    let error = Server::new(&carnet(ExposureMode::Dynamic), "nobody").unwrap_err();
    assert!(error.to_string().contains("nobody"), "{error}");
    assert_eq!(DEFAULT_MAX_MESSAGE_BYTES, 16 * 1024 * 1024);
}

#[tokio::test]
async fn digests_computed_at_build_time_are_served_as_they_are() {
    // A manifest from `carnet_codegen` carries every digest; the server serves those and
    // hashes nothing itself (shown here with a digest the bytes would not give).
    let built = "sha256:0000000000000000000000000000000000000000000000000000000000000001";
    let json = MANIFEST.replace(
        r##"{ "path": "guide.md", "description": "How to analyse", "content": "# Guide\n" }"##,
        &format!(r##"{{ "path": "guide.md", "description": "How to analyse", "content": "# Guide\n", "digest": "{built}" }}"##),
    );
    assert_ne!(json, MANIFEST);
    let carnet = Carnet::builder(&Manifest::from_json(&json).unwrap())
        .allow_unimplemented()
        .build()
        .unwrap();
    let server = Server::new(&carnet, "researcher").unwrap();
    let (mut client, _) = Client::initialized(&server).await;
    let one = client
        .request("skills/get", json!({ "uri": "skill://dataAnalysis/SKILL.md" }))
        .await;
    assert_eq!(one["skill"]["resources"][1]["uri"], "skill://dataAnalysis/guide.md");
    assert_eq!(one["skill"]["resources"][1]["digest"], built);
    assert_eq!(one["skill"]["resources"][2]["digest"], sha256(&[0, 1, 2, 255]));
}

#[cfg(feature = "mcp-http")]
#[tokio::test]
async fn a_connection_kept_in_an_arc_reports_what_its_client_loaded() {
    let carnet = carnet(ExposureMode::Dynamic);
    let server = Server::new(&carnet, "researcher").unwrap();
    let connection = std::sync::Arc::new(server.connection());
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let handler = connection.clone();
    tokio::spawn(async move {
        let running = rmcp::serve_server(handler, tokio::io::split(theirs)).await.unwrap();
        let _ = running.waiting().await;
    });
    let mut client = Client::connect(ours);
    client.initialize().await;
    assert_eq!(connection.state().await.skills, ["webSearch"]);
    client
        .call_tool("loadSkill", json!({ "skillName": "dataAnalysis" }))
        .await;
    let state = connection.state().await;
    assert_eq!(state.skills, ["webSearch", "dataAnalysis"]);
    // The state resumes in a plain session.
    let resumed = carnet.resume(&state).unwrap();
    assert!(resumed.is_exposed("stats.mean"));
}

/// `server/discover` as a `2026-07-28` client opens a connection.
async fn discover(server: &Server) -> Value {
    let mut client = Client::start(server);
    client
        .call(
            "server/discover",
            json!({ "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "0" },
                "io.modelcontextprotocol/clientCapabilities": {},
            } }),
        )
        .await
}

#[tokio::test]
async fn the_stateless_revision_is_offered_only_over_a_stream_in_dispatcher_mode() {
    let dispatcher = Server::new(&carnet(ExposureMode::Dispatcher), "researcher").unwrap();
    let found = discover(&dispatcher).await;
    let versions = found["result"]["supportedVersions"].to_string();
    assert!(
        versions.contains("2026-07-28") && versions.contains("2025-11-25"),
        "{found}"
    );

    // Dynamic tool lists change as a side effect of calls, which 2026-07-28 forbids.
    let dynamic = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    let refused = discover(&dynamic).await;
    assert_eq!(refused["error"]["code"], -32022, "{refused}");
    let supported = refused["error"]["data"]["supported"].to_string();
    assert!(
        !supported.contains("2026-07-28") && supported.contains("2025-11-25"),
        "{refused}"
    );
}

#[tokio::test]
async fn a_last_line_without_a_newline_is_still_served() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    let (mut client, _) = Client::initialized(&server).await;
    client
        .write
        .write_all(br#"{"jsonrpc": "2.0", "id": 5, "method": "ping"}"#)
        .await
        .unwrap();
    client.write.shutdown().await.unwrap();
    let pong = client.read_message().await;
    assert_eq!(pong, json!({ "jsonrpc": "2.0", "id": 5, "result": {} }));
}

#[tokio::test]
async fn resource_uris_are_compared_decoded() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    let (mut client, _) = Client::initialized(&server).await;
    for uri in [
        "skill://dataAnalysis/guide.md",
        "skill://dataAnalysis/%67uide.md",
        "skill://data%41nalysis/guide%2emd",
    ] {
        let read = client.request("resources/read", json!({ "uri": uri })).await;
        assert_eq!(read["contents"][0]["text"], "# Guide\n", "{uri}");
    }
    let missing = client
        .call("resources/read", json!({ "uri": "skill://dataAnalysis/guide%FF.md" }))
        .await;
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
}

#[cfg(feature = "mcp-http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_loopback_address_serves_requests_naming_it() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    let http = server.bind_http("127.0.0.2:0").await.unwrap();
    let addr = http.local_addr().unwrap();
    tokio::spawn(http.run());
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } } });
    let (status, body) = http_post(addr, &[], init.to_string().as_bytes()).await;
    assert_eq!(status, 200, "Host: {} is accepted: {body}", addr.ip());
}

#[tokio::test]
async fn a_cancelled_call_stops_and_the_connection_goes_on() {
    /// What the tool saw of its call: its id and its cancellation signal.
    type Seen = std::sync::Arc<std::sync::Mutex<Option<(Option<String>, carnet_runtime::Cancellation)>>>;
    /// Sleeps an hour, and hands its cancellation signal (and call id) out.
    struct Slow(Seen);
    impl carnet_runtime::ToolHandler for Slow {
        fn call<'a>(
            &'a self,
            context: &'a carnet_runtime::Context<'a>,
            _: serde_json::Value,
        ) -> carnet_runtime::BoxFuture<'a, Result<serde_json::Value, carnet_runtime::ToolError>> {
            *self.0.lock().unwrap() = Some((context.call_id().map(str::to_owned), context.cancellation().clone()));
            Box::pin(async move {
                tokio::time::sleep(Duration::from_hours(1)).await;
                Ok(json!("never"))
            })
        }
    }
    let manifest = Manifest::from_json(MANIFEST).unwrap();
    let seen = Seen::default();
    let slow = ToolImpl::new(
        "basicSearch",
        json!({"type": "object"}),
        Slow(std::sync::Arc::clone(&seen)),
    );
    let carnet = Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("search-tools", [slow]))
        .allow_unimplemented()
        .build()
        .unwrap();
    let server = Server::new(&carnet, "researcher").unwrap();
    let (mut client, _) = Client::initialized(&server).await;
    let call = json!({ "jsonrpc": "2.0", "id": 40, "method": "tools/call",
                       "params": { "name": "basicSearch", "arguments": {} } });
    client.send_line(&call.to_string()).await;
    // Cancelled once it runs (a cancel that overtakes the call would stop it before).
    let started = async {
        while seen.lock().unwrap().is_none() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), started)
        .await
        .expect("the tool runs");
    let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": { "requestId": 40, "reason": "took too long" } });
    client.send_line(&cancel.to_string()).await;
    // The session is free again: a tool list comes back although the search never ends.
    assert!(client.tool_names().await.contains(&"basicSearch".to_owned()));
    // The tool's cancellation signal fired: work it handed elsewhere can stop.
    let (id, signal) = seen.lock().unwrap().clone().expect("the tool ran");
    assert_eq!(id.as_deref(), Some("40"), "an MCP call's id is the request's");
    tokio::time::timeout(Duration::from_secs(10), signal.cancelled())
        .await
        .expect("the client's notifications/cancelled fires the tool's signal");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_connections_tool_calls_run_side_by_side() {
    // `wait` returns once `signal` has run: served one after the other, they would deadlock.
    let manifest = Manifest::from_json(MANIFEST).unwrap();
    let gate = std::sync::Arc::new(tokio::sync::Notify::new());
    let (waiting, signalling) = (gate.clone(), gate);
    let wait = ToolImpl::from_fn("stats.mean", json!({"type": "object"}), move |_| {
        let gate = waiting.clone();
        async move {
            gate.notified().await;
            Ok(json!("released"))
        }
    });
    let signal = ToolImpl::from_fn("fail", json!({"type": "object"}), move |_| {
        let gate = signalling.clone();
        async move {
            gate.notify_one();
            Ok(json!("signalled"))
        }
    });
    let carnet = Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("statistics", [wait, signal]))
        .allow_unimplemented()
        .build()
        .unwrap();
    let server = Server::new(&carnet, "researcher").unwrap();
    let (mut client, _) = Client::initialized(&server).await;
    client
        .call_tool("loadSkill", json!({ "skillName": "dataAnalysis" }))
        .await;
    for (id, tool) in [(50, "stats_mean"), (51, "fail")] {
        let call = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                           "params": { "name": tool, "arguments": {} } });
        client.send_line(&call.to_string()).await;
    }
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let message = client.read_message().await;
        if let Some(id) = message.get("id") {
            answers.push((id.clone(), message["result"]["content"][0]["text"].clone()));
        }
    }
    answers.sort_by_key(|(id, _)| id.as_u64());
    assert_eq!(
        answers,
        [(json!(50), json!("released")), (json!(51), json!("signalled"))]
    );
}

#[tokio::test]
async fn an_output_schema_is_listed_and_structured_content_validates_against_it() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    let (mut client, _) = Client::initialized(&server).await;
    client
        .call_tool("loadSkill", json!({ "skillName": "dataAnalysis" }))
        .await;
    let listed = client.request("tools/list", json!({})).await;
    let tool = |name: &str| {
        listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(tool("stats_mean")["outputSchema"], mean_schema());
    assert_eq!(tool("fail").get("outputSchema"), None, "no schema declared");
    assert_eq!(tool("loadSkill").get("outputSchema"), None);

    let result = client.call_tool("stats_mean", json!({ "values": [1, 2, 3] })).await;
    assert_eq!(result["isError"], false);
    carnet_runtime::schema::validate(&result["structuredContent"], &mean_schema()).unwrap();
    assert_eq!(result["structuredContent"], json!({ "mean": 2.0 }));
}

#[tokio::test]
async fn deferred_and_allowed_tools_modes_serve_a_fixed_full_list_and_refuse_unloaded_tools() {
    for mode in [ExposureMode::Deferred, ExposureMode::AllowedTools] {
        let server = Server::new(&carnet(mode), "researcher").unwrap();
        let (mut client, init) = Client::initialized(&server).await;
        assert_eq!(init["capabilities"]["tools"]["listChanged"], false, "{mode:?}");
        let before = client.tool_names().await;
        assert!(
            before.contains(&"stats_mean".to_owned()),
            "{mode:?}: every reachable tool is listed"
        );
        let refused = client.call_tool("stats_mean", json!({ "values": [1] })).await;
        assert_eq!(refused["isError"], true, "{mode:?}");
        client
            .call_tool("loadSkill", json!({ "skillName": "dataAnalysis" }))
            .await;
        assert_eq!(client.tool_names().await, before, "{mode:?}: the list never changes");
        let mean = client.call_tool("stats_mean", json!({ "values": [1, 3] })).await;
        assert_eq!(mean["structuredContent"], json!({ "mean": 2.0 }), "{mode:?}");
    }
}

/// Serves one connection whose input is `messages`, written at once and then closed; the
/// server must answer and end within 10 s. Returns the responses by id, and the raw output.
async fn serve_at_once(server: &Server, messages: &[Value]) -> (std::collections::HashMap<i64, Value>, String) {
    use tokio::io::AsyncReadExt as _;
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(theirs);
    let serving = tokio::spawn({
        let server = server.clone();
        async move { server.serve(read, write).await }
    });
    let (mut output, mut input) = tokio::io::split(ours);
    let mut bytes = Vec::new();
    for message in messages {
        bytes.extend_from_slice(message.to_string().as_bytes());
        bytes.push(b'\n');
    }
    input.write_all(&bytes).await.unwrap();
    input.shutdown().await.unwrap();
    let mut text = String::new();
    tokio::time::timeout(Duration::from_secs(10), output.read_to_string(&mut text))
        .await
        .expect("the server answers and closes within 10 s")
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let responses = text
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter_map(|m| Some((m.get("id")?.as_i64()?, m)))
        .collect();
    (responses, text)
}

/// Requests written at once (as a host pipelines them) take effect in the order they were
/// written: the tool of a skill loaded by the request before it is callable. And every
/// request read is answered before the server stops at the end of its input.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_requests_take_effect_in_order_and_are_all_answered_at_end_of_input() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    // Several rounds: a wrong order is a race, which one round might miss.
    for round in 0..20 {
        let lines = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
                   "capabilities": {}, "clientInfo": {"name": "pipeline", "version": "0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "loadSkill", "arguments": {"skillName": "dataAnalysis"}}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": "stats_mean", "arguments": {"values": [1, 2, 3]}}}),
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
        ];
        let (responses, output) = serve_at_once(&server, &lines).await;
        for id in 1..=4 {
            assert!(
                responses.contains_key(&id),
                "round {round}: request {id} got no answer: {output}"
            );
        }
        let call = &responses[&3]["result"];
        assert_ne!(
            call.get("isError"),
            Some(&json!(true)),
            "round {round}: the tool ran before its skill loaded: {call}"
        );
        assert_eq!(call["structuredContent"]["mean"], json!(2.0), "round {round}: {call}");
        let listed: Vec<&str> = responses[&4]["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert!(listed.contains(&"stats_mean"), "round {round}: {listed:?}");
    }
}

/// A request that reuses the id of one not yet answered gets no answer of its own (rmcp
/// answers one): the end of the input must not wait for it. Found by `cargo fuzz` (target
/// `mcp`): the connection never ended.
#[tokio::test]
async fn the_end_of_input_does_not_wait_for_a_reused_request_id() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    let lines = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
               "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "resources/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": {"x": 1}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "resources/list"}),
    ];
    let (responses, output) = serve_at_once(&server, &lines).await;
    assert!(responses.contains_key(&3) && responses.contains_key(&5), "{output}");
}

/// A client cannot make one connection hold unbounded work: past 256 requests running, the
/// next is refused (and the input still read, so a cancellation gets through and frees a
/// place); a request reusing the id of one still running is refused too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_running_at_once_are_bounded_and_ids_unique() {
    let manifest = Manifest::from_json(MANIFEST).unwrap();
    let never = ToolImpl::from_fn("basicSearch", json!({"type": "object"}), |_| async move {
        std::future::pending::<()>().await;
        Ok(json!("never"))
    });
    let carnet = Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("search-tools", [never]))
        .allow_unimplemented()
        .build()
        .unwrap();
    let server = Server::new(&carnet, "researcher").unwrap();
    let (mut client, _) = Client::initialized(&server).await;
    let call = |id: u64| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": { "name": "basicSearch", "arguments": {} } })
        .to_string()
    };
    for id in 1000..1256 {
        client.send_line(&call(id)).await;
    }
    client.send_line(&call(1000)).await;
    let reused = client.read_message().await;
    assert_eq!(
        (&reused["id"], &reused["error"]["code"]),
        (&json!(1000), &json!(-32600)),
        "{reused}"
    );
    client.send_line(&call(2000)).await;
    let one_too_many = client.read_message().await;
    assert_eq!(one_too_many["id"], 2000, "{one_too_many}");
    assert!(
        one_too_many["error"]["message"]
            .as_str()
            .unwrap()
            .contains("256 requests running"),
        "{one_too_many}"
    );
    // A cancelled call frees its place: the next one runs (and is cancelled in turn).
    let cancel = |id: u64| {
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": id } }).to_string()
    };
    client.send_line(&cancel(1000)).await;
    client.send_line(&call(2001)).await;
    client.send_line(&cancel(2001)).await;
    // Nothing answers the cancelled calls; a ping still comes back at once.
    let pong = client.call("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}), "{pong}");
}

/// The `_meta` of a stateless (`2026-07-28`) request.
fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "0" },
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

#[tokio::test]
async fn the_server_is_named_after_its_agent_and_the_version_its_frontmatter_gives() {
    let mut manifest: Value = serde_json::from_str(MANIFEST).unwrap();
    manifest["agents"]["researcher"]["extra"] = json!({ "version": "2.4.1" });
    let manifest = Manifest::from_json(&manifest.to_string()).unwrap();
    let carnet = Carnet::builder(&manifest).allow_unimplemented().build().unwrap();
    let (_, init) = Client::initialized(&Server::new(&carnet, "researcher").unwrap()).await;
    assert_eq!(init["serverInfo"]["name"], "researcher");
    assert_eq!(init["serverInfo"]["version"], "2.4.1");
    // `named` still names it otherwise.
    let named = Server::new(&carnet, "analyst").unwrap().named("desk", "9");
    let (_, init) = Client::initialized(&named).await;
    assert_eq!(
        init["serverInfo"],
        json!({ "name": "desk", "title": "carnet agent `analyst`", "version": "9" })
    );
}

#[tokio::test]
async fn meta_tools_ask_hosts_to_load_them_and_domain_tools_carry_their_skills_search_hint() {
    let mut manifest: Value = serde_json::from_str(MANIFEST).unwrap();
    manifest["skills"]["dataAnalysis"]["description"] = json!("Analyse data. Means, medians and the like.");
    manifest["skills"]["dataAnalysis"]["extra"] = json!({ "tags": ["statistics", "csv"] });
    let manifest = Manifest::from_json(&manifest.to_string()).unwrap();
    for mode in [ExposureMode::Dynamic, ExposureMode::Dispatcher] {
        let carnet = Carnet::builder(&manifest)
            .allow_unimplemented()
            .mode(mode)
            .build()
            .unwrap();
        let (mut client, _) = Client::initialized(&Server::new(&carnet, "researcher").unwrap()).await;
        client
            .call_tool("loadSkill", json!({ "skillName": "dataAnalysis" }))
            .await;
        let listed = client.request("tools/list", json!({})).await;
        let mut domain = 0;
        for tool in listed["tools"].as_array().unwrap() {
            let name = tool["name"].as_str().unwrap();
            if META.contains(&name) || name == "callTool" {
                assert_eq!(
                    tool["_meta"],
                    json!({ "anthropic/alwaysLoad": true }),
                    "{mode:?}: {tool}"
                );
                continue;
            }
            domain += 1;
            let hint = tool["_meta"]["anthropic/searchHint"].as_str().unwrap_or_default();
            if name == "basicSearch" {
                assert_eq!(hint, "webSearch: Search the web", "{tool}");
            } else {
                assert_eq!(hint, "dataAnalysis: Analyse data. (statistics, csv)", "{tool}");
            }
            assert!(tool["_meta"].get("anthropic/alwaysLoad").is_none(), "{tool}");
        }
        let expected = if mode == ExposureMode::Dynamic { 3 } else { 0 };
        assert_eq!(domain, expected, "{mode:?}: {listed}");
    }
}

#[tokio::test]
async fn completion_completes_the_prompts_arguments_and_is_declared() {
    let server = Server::new(&carnet(ExposureMode::Dynamic), "researcher").unwrap();
    let (mut client, init) = Client::initialized(&server).await;
    assert!(init["capabilities"]["completions"].is_object(), "{init}");
    let complete = |name: &str, argument: &str, value: &str| json!({ "ref": { "type": "ref/prompt", "name": name }, "argument": { "name": argument, "value": value } });
    let found = client
        .request("completion/complete", complete("researcher", "ORG", "Car"))
        .await;
    assert_eq!(
        found,
        json!({ "completion": { "values": ["Carnet Labs"], "total": 1, "hasMore": false } })
    );
    let none = client
        .request("completion/complete", complete("researcher", "ORG", "Acme"))
        .await;
    assert_eq!(none["completion"]["values"], json!([]));
    let resource = json!({ "ref": { "type": "ref/resource", "uri": "skill://dataAnalysis/SKILL.md" },
                           "argument": { "name": "x", "value": "" } });
    assert_eq!(
        client.request("completion/complete", resource).await["completion"]["values"],
        json!([])
    );
    for (params, says) in [
        (complete("nobody", "ORG", ""), "no prompt named `nobody`"),
        (
            complete("researcher", "TEAM", ""),
            "no argument `TEAM`; its arguments: `ORG`",
        ),
        (
            json!({ "ref": { "type": "ref/prompt" } }),
            "invalid params for `completion/complete`",
        ),
    ] {
        let refused = client.call("completion/complete", params).await;
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{message}");
    }
}

#[tokio::test]
async fn a_cursor_this_server_never_gave_is_invalid_params() {
    let server = Server::new(&carnet(ExposureMode::Dispatcher), "researcher").unwrap();
    let (mut client, _) = Client::initialized(&server).await;
    for method in [
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "skills/list",
    ] {
        let whole = client.call(method, json!({})).await;
        assert!(whole.get("result").is_some(), "{whole}");
        assert!(whole["result"].get("nextCursor").is_none(), "{whole}");
        for cursor in [json!("page-2"), json!(2)] {
            let refused = client.call(method, json!({ "cursor": cursor })).await;
            assert_eq!(refused["error"]["code"], -32602, "{method}: {refused}");
        }
        let mut params = json!({ "cursor": "x", "_meta": modern_meta() });
        let refused = client.call(method, params.take()).await;
        assert_eq!(refused["error"]["code"], -32602, "{method}, stateless: {refused}");
    }
}

#[tokio::test]
async fn initialize_under_the_stateless_revision_is_an_unknown_method() {
    let server = Server::new(&carnet(ExposureMode::Dispatcher), "researcher").unwrap();
    let mut client = Client::start(&server);
    let refused = client
        .call(
            "initialize",
            json!({ "protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" },
                    "_meta": modern_meta() }),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("2025-11-25"),
        "names the revisions with `initialize`: {message}"
    );
    // The connection goes on, statelessly; every result says it is complete.
    for method in [
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "skills/list",
        "tools/list",
    ] {
        let listed = client.request(method, json!({ "_meta": modern_meta() })).await;
        assert_eq!(listed["resultType"], "complete", "{method}: {listed}");
    }
    let completed = client
        .request(
            "completion/complete",
            json!({ "_meta": modern_meta(), "ref": { "type": "ref/prompt", "name": "researcher" },
                    "argument": { "name": "ORG", "value": "" } }),
        )
        .await;
    assert_eq!(completed["resultType"], "complete", "{completed}");
    // Without the stateless `_meta`, `initialize` opens a session as before.
    let (_, init) = Client::initialized(&server).await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
}
