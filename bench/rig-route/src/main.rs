//! carnet in a rig agent by two routes, measured side by side in one run (issue 51):
//!
//! - **registry**: `carnet-rig` — carnet's session behind rig's tool registry and a hook that
//!   sets the preamble and syncs the registry before each request;
//! - **mcp**: rig's own MCP client (`rig-rmcp`'s `McpClientHandler`, which re-fetches the tool
//!   list on `notifications/tools/list_changed`) over carnet's MCP server, in process (a
//!   `tokio::io::duplex` pipe, so no socket or process is timed).
//!
//! Printed: what each request of the same scripted conversation carried (preamble and tools,
//! o200k_base tokens, which tools), how often the tools of a skill loaded by the previous
//! answer were offered in the next request (over `ROUNDS` conversations), the cost of one
//! domain tool call through each route beside calling the session directly (the floor), and
//! the lines a rig user writes for each route (counted from this file, between markers).
//!
//! ```text
//! cargo run --release --manifest-path carnet-rig/Cargo.toml -p rig-route
//! ```

// Token counts and durations stay far below 2^52.
#![allow(clippy::cast_precision_loss)]
// rmcp's `connect` future is ~18 KB: what an author on this route awaits too; a bench awaits it
// a few dozen times.
#![allow(clippy::large_futures)]

use std::time::{Duration, Instant};

use carnet::{Carnet, tokens};
use research_agent::manifest::{MANIFEST, agents};
use research_agent::tools;
use rig_agent::AgentBuilder;
use rig_agent::tool::server::{ToolServer, ToolServerHandle};
use rig_core::completion::{CompletionRequest, ToolDefinition};
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use rig_core::tool::ToolContext;
use rig_rmcp::McpClientHandler;
use rig_rmcp::rmcp::model::ClientInfo;
use rig_rmcp::rmcp::service::{RoleClient, RunningService};
use serde_json::json;

/// Conversations run through each route to count how often a load reached the next request.
const ROUNDS: usize = 50;
/// Domain tool calls timed through each route.
const CALLS: u32 = 2_000;

const QUESTION: &str = "How many units do we sell in a month?";

fn script() -> MockCompletionModel {
    MockCompletionModel::from_turns([
        MockTurn::tool_call("call_1", "loadSkill", json!({"skillName": "dataAnalysis"})),
        MockTurn::tool_call(
            "call_2",
            "analyzeStatistics",
            json!({"dataset": "monthly_sales", "column": "units"}),
        ),
        MockTurn::text("We sell 1,225 units a month on average."),
    ])
}

#[tokio::main]
async fn main() {
    let carnet = Carnet::new(&MANIFEST, tools::toolsets())
        .build()
        .expect("every toolset is bound");

    println!("What each request carried (one conversation: loadSkill, analyzeStatistics, answer)\n");
    println!("registry (carnet-rig):");
    let model = script();
    let (agent, _chat) = registry_route(&carnet, model.clone());
    agent.prompt(QUESTION).await.expect("scripted");
    let registry = report(&model.requests());

    println!("mcp (rig-rmcp over carnet's MCP server):");
    let model = script();
    let (agent, _, _service) = mcp_route(&carnet, model.clone()).await;
    let outcome = agent.prompt(QUESTION).await;
    let mcp = report(&model.requests());
    if let Err(error) = outcome {
        println!("  the conversation ended with: {error}");
    }
    println!(
        "\n  preamble + tools, whole conversation: registry {} tokens, mcp {} tokens",
        registry.iter().sum::<usize>(),
        mcp.iter().sum::<usize>()
    );

    println!("\nA load reaching the next request, over {ROUNDS} conversations each");
    let mut offered = [0usize; 2];
    let mut answered = [0usize; 2];
    for _ in 0..ROUNDS {
        let model = script();
        let (agent, _chat) = registry_route(&carnet, model.clone());
        answered[0] += usize::from(agent.prompt(QUESTION).await.is_ok());
        offered[0] += usize::from(second_request_offers(&model.requests()));
        let model = script();
        let (agent, _, _service) = mcp_route(&carnet, model.clone()).await;
        answered[1] += usize::from(agent.prompt(QUESTION).await.is_ok());
        offered[1] += usize::from(second_request_offers(&model.requests()));
    }
    println!(
        "  registry: analyzeStatistics offered in request 2 in {}/{ROUNDS}, answered {}/{ROUNDS}",
        offered[0], answered[0]
    );
    println!(
        "  mcp:      analyzeStatistics offered in request 2 in {}/{ROUNDS}, answered {}/{ROUNDS}",
        offered[1], answered[1]
    );

    println!("\nOne domain tool call (analyzeStatistics), {CALLS} calls each, same process");
    let floor = direct_calls(&carnet).await;
    let (_agent, chat) = registry_route(&carnet, script());
    // Through the registry's `loadSkill`, as the model loads (a program's own `load_skill`
    // reaches the registry at the next request's hook).
    load(&chat.tool_server()).await;
    let through_registry = handle_calls(&chat.tool_server(), "analyzeStatistics").await;
    let (_agent, handle, _service) = mcp_route(&carnet, script()).await;
    load(&handle).await;
    wait_for(&handle, "analyzeStatistics").await;
    let through_mcp = handle_calls(&handle, "analyzeStatistics").await;
    let per_call = |d: Duration| d.as_secs_f64() * 1e6 / f64::from(CALLS);
    println!("  session.call_detached (floor): {:>7.1} µs/call", per_call(floor));
    println!(
        "  registry (rig handle → session): {:>7.1} µs/call ({:.2}× the floor)",
        per_call(through_registry),
        through_registry.as_secs_f64() / floor.as_secs_f64()
    );
    println!(
        "  mcp (rig handle → JSON-RPC → server): {:>7.1} µs/call ({:.2}× the floor, {:.2}× registry)",
        per_call(through_mcp),
        through_mcp.as_secs_f64() / floor.as_secs_f64(),
        through_mcp.as_secs_f64() / through_registry.as_secs_f64()
    );

    let source = include_str!("main.rs");
    println!("\nLines a rig user writes (this file, between the route markers)");
    println!("  registry: {}", lines_between(source, "registry route"));
    println!("  mcp:      {}", lines_between(source, "mcp route"));
}

type Agent = rig_agent::Agent;

/// carnet-rig: the session behind rig's registry and the hook.
fn registry_route(carnet: &Carnet, model: MockCompletionModel) -> (Agent, carnet_rig::Conversation) {
    // registry route {
    let chat = carnet_rig::Conversation::new(carnet.session(agents::RESEARCHER)).expect("aliases");
    let agent = AgentBuilder::new(model)
        .tool_server_handle(chat.tool_server())
        .add_hook(chat.hook())
        .default_max_turns(4)
        .build();
    // }
    (agent, chat)
}

/// rig-rmcp over carnet's MCP server, the preamble from the server's `instructions`.
async fn mcp_route(
    carnet: &Carnet,
    model: MockCompletionModel,
) -> (Agent, ToolServerHandle, RunningService<RoleClient, Handler>) {
    // mcp route {
    let server = carnet::mcp::Server::new(carnet, agents::RESEARCHER).expect("the agent exists");
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let (read, write) = tokio::io::split(server_end);
        server.serve(read, write).await
    });
    let registry = ToolServer::new().run();
    let service = McpClientHandler::new(ClientInfo::default(), registry.clone())
        .connect(client_end)
        .await
        .expect("connects");
    let preamble = service
        .peer_info()
        .and_then(|info| info.instructions.clone())
        .unwrap_or_default();
    let agent = AgentBuilder::new(model)
        .preamble(&preamble)
        .tool_server_handle(registry.clone())
        .default_max_turns(4)
        .build();
    // }
    (agent, registry, service)
}

type Handler = McpClientHandler<ToolServerHandle>;

/// Waits (bounded) until `name` is registered: rig-rmcp refreshes after `list_changed`.
async fn wait_for(handle: &ToolServerHandle, name: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !handle.static_tool_defs().iter().any(|t| t.name.as_str() == name) {
        assert!(Instant::now() < deadline, "`{name}` never registered");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

async fn load(handle: &ToolServerHandle) {
    let mut context = ToolContext::new();
    let result = handle
        .execute("loadSkill", r#"{"skillName":"dataAnalysis"}"#, &mut context)
        .await;
    assert!(result.is_success(), "{result:?}");
}

const ARGUMENTS: &str = r#"{"dataset":"monthly_sales","column":"units"}"#;

async fn direct_calls(carnet: &Carnet) -> Duration {
    let mut session = carnet.session(agents::RESEARCHER);
    session.load_skill("dataAnalysis").expect("the researcher has it");
    let arguments: serde_json::Value = serde_json::from_str(ARGUMENTS).expect("JSON");
    let start = Instant::now();
    for _ in 0..CALLS {
        let output = session
            .call_detached("analyzeStatistics", &arguments)
            .expect("a domain tool")
            .await;
        assert!(output.error_message().is_none(), "{}", output.to_text());
    }
    start.elapsed()
}

async fn handle_calls(handle: &ToolServerHandle, name: &str) -> Duration {
    let mut context = ToolContext::new();
    let start = Instant::now();
    for _ in 0..CALLS {
        let result = handle.execute(name, ARGUMENTS, &mut context).await;
        assert!(result.is_success(), "{result:?}");
    }
    start.elapsed()
}

fn second_request_offers(requests: &[CompletionRequest]) -> bool {
    requests
        .get(1)
        .is_some_and(|r| r.tools.iter().any(|t| t.name.as_str() == "analyzeStatistics"))
}

/// Prints what each request carried; returns each request's preamble + tools tokens.
fn report(requests: &[CompletionRequest]) -> Vec<usize> {
    let mut totals = Vec::new();
    for (n, request) in requests.iter().enumerate() {
        let preamble = tokens::count(request.system_instructions().unwrap_or_default());
        let tools = tool_tokens(&request.tools);
        let mut names: Vec<String> = request.tools.iter().map(|t| t.name.to_string()).collect();
        names.sort();
        println!(
            "  request {}: preamble {preamble:>5} tokens, tools {tools:>5} tokens: {}",
            n + 1,
            names.join(", ")
        );
        totals.push(preamble + tools);
    }
    totals
}

fn tool_tokens(tools: &[ToolDefinition]) -> usize {
    tools
        .iter()
        .map(|t| {
            tokens::count(
                &json!({"name": t.name.to_string(), "description": t.description, "parameters": t.parameters})
                    .to_string(),
            )
        })
        .sum()
}

/// Non-blank lines between `// {marker} {` and the next `// }`.
fn lines_between(source: &str, marker: &str) -> usize {
    let open = format!("// {marker} {{");
    source
        .lines()
        .skip_while(|line| line.trim() != open)
        .skip(1)
        .take_while(|line| line.trim() != "// }")
        .filter(|line| !line.trim().is_empty())
        .count()
}
