//! `carnet serve-a2a`: any carnet directory as an A2A 1.0 agent, its conversations run on a
//! real model (`--model openai:NAME`, `anthropic:NAME`, ...) or an offline script
//! (`--model scripted:FILE`); `carnet card --a2a`: the card it serves.

use std::path::Path;
use std::time::Duration;

use carnet_runtime::a2a::{Limits, RedisStore, Server};
use carnet_runtime::chat::{ChatModel, ChatRequest, ChatResponse, Message, ModelError};
use carnet_runtime::models::{Anthropic, Gemini, OpenAi, OpenAiApi};
use carnet_runtime::{BoxFuture, Carnet, ExposureMode, Manifest, ToolCall};
use serde_json::Value;

use crate::Failure;
use crate::unseen::{Source, Unseen};

/// The address `serve-a2a` serves when given no `--http`.
const DEFAULT_HTTP: &str = "127.0.0.1:8080";

/// The options of `serve-a2a`, the same in the `carnet` binary and an author's program.
#[derive(Debug, clap::Args)]
pub(crate) struct A2aOptions {
    /// The model every conversation runs on: `openai:NAME` (Chat Completions; key and
    /// server from `OPENAI_API_KEY`, `OPENAI_BASE_URL`: a local server needs no key),
    /// `openai-responses:NAME`, `anthropic:NAME` (`ANTHROPIC_API_KEY`,
    /// `ANTHROPIC_BASE_URL`), `gemini:NAME` (`GOOGLE_API_KEY` or `GEMINI_API_KEY`,
    /// `GOOGLE_GEMINI_BASE_URL` or `GEMINI_BASE_URL`), or `scripted:FILE`, an offline script (see `carnet serve-a2a
    /// --help`).
    #[arg(long, value_name = "PROVIDER:NAME")]
    model: String,
    /// The loopback address to serve (port 0 picks one); the server's URL is printed first.
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_HTTP)]
    http: String,
    /// The URL the agent card names, when clients reach the server elsewhere (a proxy);
    /// default: the bound address.
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// A browser origin allowed to call the server (repeatable; `scheme://host[:port]`,
    /// `:*` for any port); default: `localhost`, `127.0.0.1` and `[::1]` on any port.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
    /// Answer CORS preflights for the allowed origins (browser clients).
    #[arg(long)]
    cors: bool,
    /// Conversations (A2A contexts) held at once.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_contexts)]
    max_contexts: usize,
    /// Seconds after which an unused conversation ends.
    #[arg(long, value_name = "SECS", default_value_t = Limits::default().context_idle.as_secs())]
    context_idle: u64,
    /// Tasks held at once (finished ones are forgotten first).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_tasks)]
    max_tasks: usize,
    /// Model calls per message before the task asks for input.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_steps)]
    max_steps: usize,
    /// Seconds one message may run before its task fails.
    #[arg(long, value_name = "SECS", default_value_t = Limits::default().task_timeout.as_secs())]
    task_timeout: u64,
    /// Keep tasks, their events and the conversations in the Redis at this URL
    /// (`redis://[[USER]:PASSWORD@]HOST:PORT[/DB]`), shared by every replica that names it:
    /// a task started on one is read, followed and canceled through any other (default: in
    /// this process's memory).
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// This replica's name in the shared store: a task it was running when it died fails
    /// naming it (default: the `--http` address, or `HOSTNAME:PID` for port 0).
    #[arg(long, value_name = "NAME", requires = "store")]
    replica: Option<String>,
    /// Seconds a running task's lease lasts without renewal (renewed every second): a task
    /// whose replica died fails this long after.
    #[arg(long, value_name = "SECS", default_value_t = 10, requires = "store")]
    lease: u64,
}

/// How `scripted:FILE` models answer, for `--help`.
pub(crate) const SCRIPT_HELP: &str = "\
A script (`--model scripted:FILE`) is a JSON object {\"replies\": [REPLY, ...]}. For each model
call, the first REPLY whose `when` occurs in the user's last message (or that has no `when`)
answers with its `steps[i]`, i being the number of model calls already made for that message
(the last step repeats). A step is {\"text\": \"...\", \"calls\": [{\"name\": \"loadSkill\",
\"arguments\": {...}}], \"delayMs\": N}: text (`{input}` is the user's message, also in the
calls' arguments; `{result}` the text of its last tool result), tool calls, and a delay before
answering. Conversations, skills, tools and tasks are real; only the model is replaced.";

impl A2aOptions {
    fn limits(&self) -> Limits {
        let mut limits = Limits::default()
            .with_max_contexts(self.max_contexts)
            .with_context_idle(Duration::from_secs(self.context_idle))
            .with_max_tasks(self.max_tasks)
            .with_max_steps(self.max_steps.max(1))
            .with_task_timeout(Duration::from_secs(self.task_timeout))
            .with_cors(self.cors);
        if !self.allow_origins.is_empty() {
            limits = limits.with_allowed_origins(self.allow_origins.iter().cloned());
        }
        limits
    }
}

/// `carnet serve-a2a`: the directory's content, its domain tools unimplemented (loading
/// works; calling one is an error result the model reads).
pub(crate) fn run(
    manifest: &Manifest,
    dir: Option<&std::path::Path>,
    agent: &str,
    mode: crate::tools::Mode,
    preset: crate::tools::PresetArg,
    vars: &[(String, String)],
    options: &A2aOptions,
) -> Result<(), Failure> {
    let carnet = Carnet::builder(manifest)
        .allow_unimplemented()
        .variables(vars.iter().cloned())
        .mode(ExposureMode::from(mode))
        .preset(preset.into())
        .build()
        .map_err(|e| Failure::content(format!("error: {e}")))?;
    if let Some(entry) = manifest.agent(agent) {
        // The command names the author's crate when the content was read from a directory
        // (`--manifest-path`), none after `--manifest`.
        let unseen = Unseen::reachable(manifest, Source::Markdown(dir), entry);
        let mut args = vec!["serve-a2a", agent, "--model", &options.model];
        if options.http != DEFAULT_HTTP {
            args.extend(["--http", &options.http]);
        }
        unseen.warn(
            "the model is offered them with the schema `{\"type\": \"object\", \"additionalProperties\": true}`, \
             and calling one returns an error result to it",
            &unseen.command(&args),
        );
    }
    serve_on(
        &carnet,
        agent,
        options,
        "remote toolsets' tools are called on their servers; tools implemented in Rust can be loaded, not run",
    )
}

/// Serves `agent` of `carnet` over A2A until the process is interrupted.
pub(crate) fn serve_on(carnet: &Carnet, agent: &str, options: &A2aOptions, note: &str) -> Result<(), Failure> {
    let spec = ModelSpec::parse(&options.model).map_err(|e| Failure::usage(format!("error: --model: {e}")))?;
    // A missing key or a bad base URL is said now, not at the first message.
    spec.model()
        .map_err(|e| Failure::usage(format!("error: --model `{}`: {e}", options.model)))?;
    let manifest = carnet.manifest();
    let server = Server::new(carnet, agent, move |_context| spec.model())
        .map_err(|_| crate::unknown("agent", agent, manifest.agents.iter().map(|a| &a.name)))?
        .limits(options.limits());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::content(format!("error: cannot start the async runtime: {e}")))?;
    let server = match &options.store {
        None => server,
        Some(url) => {
            let store = runtime
                .block_on(RedisStore::connect(url))
                .map_err(|e| Failure::usage(format!("error: --store `{url}`: {e}")))?;
            let replica = options.replica.clone().or_else(|| {
                // A fixed address names the replica; port 0 leaves the store's default.
                (!options.http.ends_with(":0")).then(|| options.http.clone())
            });
            let store = store
                .lease(Duration::from_secs(options.lease))
                .ttl(Limits::default().task_ttl)
                .max_tasks(options.max_tasks);
            server.store(match replica {
                Some(name) => store.replica(name),
                None => store,
            })
        }
    };
    let outcome = runtime.block_on(async {
        let mut http = server.bind(options.http.as_str()).await?;
        if let Some(url) = &options.public_url {
            http = http.public_url(url);
        }
        outln!("{}", http.url());
        eprintln!(
            "carnet: serving agent `{agent}` over A2A 1.0 at {} (card at {}{}); model {}; tasks {}; {note}",
            http.url(),
            http.url(),
            carnet_runtime::a2a::AGENT_CARD_PATH,
            options.model,
            options.store.as_deref().map_or("in memory", |_| "in the shared store"),
        );
        http.run_until(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
    });
    runtime.shutdown_background();
    outcome.map_err(|e| Failure::usage(format!("error: {e}")))
}

/// Prints the A2A 1.0 card `serve-a2a` serves for `agent` at `url`.
pub(crate) fn card(manifest: &Manifest, agent: &str, url: &str) -> Result<(), Failure> {
    let card = carnet_runtime::a2a::agent_card(manifest, agent, url, env!("CARGO_PKG_VERSION"))
        .ok_or_else(|| crate::unknown("agent", agent, manifest.agents.iter().map(|a| &a.name)))?;
    outln!(
        "{}",
        serde_json::to_string_pretty(&card).expect("JSON values serialise")
    );
    Ok(())
}

/// What `--model` names.
#[derive(Debug, Clone)]
enum ModelSpec {
    OpenAi(String, OpenAiApi),
    Anthropic(String),
    Gemini(String),
    Scripted(std::sync::Arc<Script>),
}

impl ModelSpec {
    fn parse(spec: &str) -> Result<ModelSpec, String> {
        let (provider, name) = spec
            .split_once(':')
            .filter(|(p, n)| !p.is_empty() && !n.is_empty())
            .ok_or_else(|| format!("`{spec}`: expected PROVIDER:NAME, as openai:gpt-4.1-mini or scripted:FILE"))?;
        match provider {
            "openai" => Ok(ModelSpec::OpenAi(name.to_owned(), OpenAiApi::ChatCompletions)),
            "openai-responses" => Ok(ModelSpec::OpenAi(name.to_owned(), OpenAiApi::Responses)),
            "anthropic" => Ok(ModelSpec::Anthropic(name.to_owned())),
            "gemini" => Ok(ModelSpec::Gemini(name.to_owned())),
            "scripted" => Script::read(Path::new(name)).map(|s| ModelSpec::Scripted(std::sync::Arc::new(s))),
            other => Err(format!(
                "`{spec}`: unknown provider `{other}` (openai, openai-responses, anthropic, gemini, scripted)"
            )),
        }
    }

    fn model(&self) -> Result<Box<dyn ChatModel>, ModelError> {
        Ok(match self {
            ModelSpec::OpenAi(name, api) => Box::new(OpenAi::from_env(name)?.api(*api)),
            ModelSpec::Anthropic(name) => Box::new(Anthropic::from_env(name)?),
            ModelSpec::Gemini(name) => Box::new(Gemini::from_env(name)?),
            ModelSpec::Scripted(script) => Box::new(Scripted(script.clone())),
        })
    }
}

/// An offline model read from a file: see [`SCRIPT_HELP`].
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Script {
    replies: Vec<Reply>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Reply {
    #[serde(default)]
    when: Option<String>,
    steps: Vec<ScriptStep>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ScriptStep {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    calls: Vec<ScriptCall>,
    #[serde(default)]
    delay_ms: u64,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptCall {
    name: String,
    #[serde(default)]
    arguments: Option<Value>,
}

impl Script {
    fn read(path: &Path) -> Result<Script, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        let script: Script =
            serde_json::from_str(&text).map_err(|e| format!("`{}` is not a script: {e}", path.display()))?;
        if let Some(reply) = script.replies.iter().find(|r| r.steps.is_empty()) {
            return Err(format!(
                "`{}`: the reply {} has no steps",
                path.display(),
                reply
                    .when
                    .as_deref()
                    .map_or_else(|| "without `when`".to_owned(), |w| format!("for `{w}`"))
            ));
        }
        Ok(script)
    }

    /// The step answering `request`, and how long to wait before.
    fn answer(&self, request: &ChatRequest<'_>) -> Result<(ChatResponse, Duration), ModelError> {
        let user = request
            .messages
            .iter()
            .rev()
            .find_map(|m| match m {
                Message::User(text) => Some(text.as_str()),
                _ => None,
            })
            .unwrap_or_default();
        let made = request
            .messages
            .iter()
            .rev()
            .take_while(|m| !matches!(m, Message::User(_)))
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();
        let reply = self
            .replies
            .iter()
            .find(|r| r.when.as_deref().is_none_or(|w| user.contains(w)))
            .ok_or_else(|| ModelError::other("the script has no reply for this message (add one without `when`)"))?;
        let step = &reply.steps[made.min(reply.steps.len() - 1)];
        let calls: Vec<ToolCall> = step
            .calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                carnet_runtime::chat::call(
                    made * 100 + i + 1,
                    &call.name,
                    call.arguments
                        .as_ref()
                        .map_or_else(|| serde_json::json!({}), |a| with_input(a, user)),
                )
            })
            .collect();
        // `{result}`: what the last tool call of this message gave (its text, else its JSON).
        let result = request
            .messages
            .iter()
            .rev()
            .take_while(|m| !matches!(m, Message::User(_)))
            .find_map(|m| match m {
                Message::Tool { output, .. } => Some(match &output.value {
                    serde_json::Value::String(text) => text.clone(),
                    other => other.to_string(),
                }),
                _ => None,
            })
            .unwrap_or_default();
        let text = step
            .text
            .as_ref()
            .map(|t| t.replace("{input}", user).replace("{result}", &result));
        let response = if calls.is_empty() {
            ChatResponse::answer(text.unwrap_or_default())
        } else {
            ChatResponse::tool_calls(text, calls)
        };
        Ok((response, Duration::from_millis(step.delay_ms)))
    }
}

/// `arguments` with `{input}` in its strings replaced by the user's message.
fn with_input(arguments: &serde_json::Value, user: &str) -> serde_json::Value {
    match arguments {
        serde_json::Value::String(s) => serde_json::Value::String(s.replace("{input}", user)),
        serde_json::Value::Array(items) => items.iter().map(|v| with_input(v, user)).collect(),
        serde_json::Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), with_input(v, user))).collect(),
        other => other.clone(),
    }
}

struct Scripted(std::sync::Arc<Script>);

impl ChatModel for Scripted {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let answer = self.0.answer(&request);
        Box::pin(async move {
            let (response, delay) = answer?;
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            Ok(response)
        })
    }

    #[allow(clippy::unnecessary_literal_bound)]
    fn provider(&self) -> &str {
        "scripted"
    }
}
