//! carnet's progressive disclosure for [rig](https://docs.rs/rig-agent) agents.
//!
//! A rig agent fixes its tools when it is built, and has no skills. With this crate, a rig
//! agent gets carnet's agent prompt and skill catalog as its preamble, carnet's meta-tools
//! (`loadSkill`, `loadSkillFile`, ...) as rig tools, and a skill's tools from the request
//! after the call that loaded it. Every call still goes through carnet's session: the
//! tools that run are the ones `#[carnet::toolset]` bound at compile time, a tool the
//! session has not exposed is refused with a result the model can read, and a tool's
//! failure is a result, never a panic.
//!
//! # Adopting it
//!
//! One [`Conversation`] per rig conversation (a chat with one user): it owns that
//! conversation's carnet [`Session`], so a skill loaded in one message is still loaded in
//! the next. Build the rig agent over its tool registry and add its hook:
//!
//! ```
//! # use carnet_runtime::{Carnet, Manifest};
//! # use rig_agent::AgentBuilder;
//! # use rig_core::test_utils::MockCompletionModel;
//! # let manifest = Manifest::from_json(r#"{"agents": {"helper": {"name": "helper",
//! #   "description": "Helps", "skills": ["notes"], "prompt": "Be brief."}}, "skills": {"notes":
//! #   {"name": "notes", "description": "Take notes", "content": "Write it down."}}, "toolsets": {}}"#)?;
//! # let carnet = Carnet::builder(&manifest).build()?;
//! # let model = MockCompletionModel::text("Done.");
//! let chat = carnet_rig::Conversation::new(carnet.session("helper")?)?;
//! let agent = AgentBuilder::new(model)
//!     .tool_server_handle(chat.tool_server())
//!     .add_hook(chat.hook())
//!     .build();
//! # let _ = agent;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Those three lines replace the agent's `.preamble(...)` and `.tool(...)` calls: the
//! preamble is the `AGENT.md` body with carnet's catalog, and the tools are the ones the
//! skills' toolsets bind. Tools registered on the agent besides (`.tool(...)` on the
//! registry) stay offered on every request, beside carnet's.
//!
//! # What each request carries
//!
//! Before each model call, the hook sets the request's preamble to the session's system
//! prompt and brings the registry in line with the session's tool list
//! ([`Session::tools`]): meta-tools first, then the domain tools the exposure mode sends,
//! in carnet's order (in [`ExposureMode::Dynamic`](carnet_runtime::ExposureMode::Dynamic),
//! the order they became callable). A call that changes the session (a load, an unload)
//! brings the registry in line as soon as it returns, so the next request offers the new
//! tools. New tools are appended, never inserted: the request's prefix stays what it was,
//! and a provider's prompt cache keeps what it had.
//!
//! Tool names are sent under their provider-safe aliases
//! ([`carnet_runtime::names::alias`]): `web.search` is offered as `web_search` and mapped
//! back before it reaches carnet.
//!
//! # Why rig's tool registry and not rig's MCP client
//!
//! rig can also follow an MCP server's tool list (`rig-rmcp`, `tools/list_changed`), and
//! carnet serves an agent over MCP. Both routes were measured side by side
//! (`bench/rig-route`, figures in `bench/RESULTS.md`), and the registry was taken:
//!
//! - **A load reaches the next request every time.** rig-rmcp re-fetches the tool list in a
//!   task of its own when `list_changed` arrives, and rig sends the next request as soon as
//!   the `loadSkill` result is in: in about half of the measured conversations (17 to 35 of 50
//!   per run) the skill's tools were not registered yet and the model's call was refused as
//!   unknown. Here the registry is synced before the result returns (50 of 50).
//! - **The prompt follows the session.** MCP carries tools, not the agent's prompt: the
//!   preamble would be the server's `initialize` instructions, fixed for the connection, without
//!   the `## Loaded Skills` section.
//! - **Less to write and to build**: 6 lines against 20 (a server, a pipe, a client handler, the
//!   preamble copied), one MCP connection per conversation avoided, and no rmcp client,
//!   rig-rmcp or carnet's `mcp` feature in the author's build. A call through the registry
//!   costs ~6-9 µs, through JSON-RPC in the same process ~0.1-0.2 ms (~20×): negligible
//!   beside a model, so not the reason.
//!
//! rig-rmcp stays the way to reach a carnet agent served by another process
//! (`carnet serve-mcp`), with the race above.
//!
//! # On llama.cpp's Python server
//!
//! `llama-cpp-python`'s server refuses two of the bodies rig's OpenAI provider sends (text
//! as a part array, an assistant turn after a tool call without `content`): attach
//! [`LlamaCppPython`] to the provider's transport ([`llama_cpp`] says how).

use std::sync::{Arc, Mutex, PoisonError, Weak};

use carnet_runtime::{Session, ToolOutput, ToolSpec, names};
use rig_agent::agent::{
    AgentHook, CompletionCallAction, CompletionCallEvent, HookContext, InvalidToolCallAction, InvalidToolCallContext,
    InvalidToolCallReason,
};
use rig_agent::run::RequestPatch;
use rig_agent::tool::server::{ToolServer, ToolServerHandle};
use rig_agent::tool::{DynamicTool, ToolExecutionError};
use rig_core::message::ToolName;
use rig_core::wasm_compat::WasmBoxedFuture;
use serde_json::Value;

pub mod llama_cpp;

pub use llama_cpp::LlamaCppPython;
pub use tokio::sync::MutexGuard;

/// One conversation of a rig agent with carnet's progressive disclosure: its carnet
/// [`Session`], the rig tool registry that offers the session's tools, and the
/// [hook](Conversation::hook) that keeps the preamble and the registry in line with it.
///
/// Cloning gives another handle to the same conversation.
#[derive(Clone)]
pub struct Conversation {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Conversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conversation")
            .field(
                "offered",
                &*self.shared.offered.lock().unwrap_or_else(PoisonError::into_inner),
            )
            .finish_non_exhaustive()
    }
}

struct Shared {
    session: tokio::sync::Mutex<Session>,
    registry: ToolServerHandle,
    /// What this conversation registered, in order: (alias, canonical name).
    offered: Mutex<Vec<(String, String)>>,
    /// A weak handle to itself, for the tools it registers (the registry holds the tools,
    /// and this holds the registry: a strong handle would be a cycle).
    this: Weak<Shared>,
}

/// Why a [`Conversation`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A tool's name has no provider-safe alias (non-ASCII, or a character providers
    /// refuse).
    Alias {
        /// The tool.
        tool: String,
        /// Why it has no alias.
        reason: String,
    },
    /// Two of the agent's tools share an alias.
    AliasCollision {
        /// The alias.
        alias: String,
        /// The first tool.
        first: String,
        /// The second tool.
        second: String,
    },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Alias { tool, reason } => write!(f, "tool `{tool}` cannot be offered to rig: {reason}"),
            Error::AliasCollision { alias, first, second } => write!(
                f,
                "tools `{first}` and `{second}` would both be offered to rig as `{alias}`: rename one"
            ),
        }
    }
}

impl std::error::Error for Error {}

impl Conversation {
    /// A conversation over `session`, with a registry of its own holding the session's
    /// tools as they are now.
    ///
    /// # Errors
    ///
    /// When a tool the session offers has no provider-safe name, or two share one.
    pub fn new(session: Session) -> Result<Self, Error> {
        Self::with_registry(session, ToolServer::new().owner("carnet").run())
    }

    /// A conversation whose tools are registered on `registry`, beside the tools already
    /// there (they stay, and are offered on every request). A name taken there by another
    /// tool is replaced by carnet's.
    ///
    /// # Errors
    ///
    /// As [`Conversation::new`].
    pub fn with_registry(session: Session, registry: ToolServerHandle) -> Result<Self, Error> {
        let shared = Arc::new_cyclic(|this| Shared {
            session: tokio::sync::Mutex::new(session),
            registry,
            offered: Mutex::new(Vec::new()),
            this: this.clone(),
        });
        // Nobody else holds the new conversation's session: the lock is taken at once.
        if let Ok(session) = shared.session.try_lock() {
            shared.sync(&session)?;
        }
        Ok(Conversation { shared })
    }

    /// The rig tool registry that offers the session's tools: give it to the agent with
    /// `AgentBuilder::tool_server_handle`.
    #[must_use]
    pub fn tool_server(&self) -> ToolServerHandle {
        self.shared.registry.clone()
    }

    /// The hook that sets each request's preamble to the session's system prompt and
    /// brings the registry in line with the session: add it with `AgentBuilder::add_hook`.
    #[must_use]
    pub fn hook(&self) -> SkillsHook {
        SkillsHook {
            shared: Arc::clone(&self.shared),
        }
    }

    /// The conversation's session, for what the program does between messages (load a
    /// skill itself, read [`Session::state`], save it). Changes are offered from the next
    /// request on.
    pub async fn session(&self) -> MutexGuard<'_, Session> {
        self.shared.session.lock().await
    }

    /// The names the registry offers for this conversation now (aliases), in order.
    #[must_use]
    pub fn offered(&self) -> Vec<String> {
        self.shared
            .offered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(alias, _)| alias.clone())
            .collect()
    }
}

impl Shared {
    /// Brings the registry in line with `session`'s tools: removes what the session no
    /// longer offers, appends what it newly offers, in the session's order.
    fn sync(&self, session: &Session) -> Result<(), Error> {
        let wanted = aliased(session.tools())?;
        let mut offered = self.offered.lock().unwrap_or_else(PoisonError::into_inner);
        if offered.len() == wanted.len() && offered.iter().zip(&wanted).all(|(a, (b, _))| a.0 == *b) {
            return Ok(());
        }
        offered.retain(|(alias, _)| {
            let keep = wanted.iter().any(|(w, _)| w == alias);
            if !keep {
                self.registry.remove_tool(alias);
            }
            keep
        });
        for (alias, spec) in wanted {
            if offered.iter().any(|(a, _)| *a == alias) {
                continue;
            }
            self.registry.add_dynamic_tool(self.tool(&alias, spec));
            offered.push((alias, spec.name.clone()));
        }
        Ok(())
    }

    /// The rig tool for `spec`: its call goes to the session under the canonical name.
    fn tool(&self, alias: &str, spec: &ToolSpec) -> DynamicTool {
        let shared = self.this.clone();
        let canonical: Arc<str> = spec.name.as_str().into();
        DynamicTool::new(
            ToolName::new(alias).expect("an alias is never empty"),
            spec.description.clone(),
            (*spec.input_schema).clone(),
            move |arguments: Value| -> WasmBoxedFuture<'static, Result<rig_agent::tool::ToolOutput, ToolExecutionError>> {
                let (shared, canonical) = (shared.clone(), Arc::clone(&canonical));
                Box::pin(async move {
                    let shared = shared
                        .upgrade()
                        .ok_or_else(|| ToolExecutionError::cancelled("the conversation has ended"))?;
                    let output = shared.call(&canonical, arguments).await;
                    if output.is_error {
                        Err(ToolExecutionError::other(output.to_text()))
                    } else {
                        Ok(rig_agent::tool::ToolOutput::text(output.to_text()))
                    }
                })
            },
        )
    }

    /// Calls `tool` in the session. A domain tool runs without holding the session (calls
    /// of one answer run side by side); a meta-tool holds it, and the registry follows
    /// what it changed before the result goes back.
    async fn call(&self, tool: &str, arguments: Value) -> ToolOutput {
        let detached = self.session.lock().await.call_detached(tool, &arguments);
        if let Some(call) = detached {
            return call.await;
        }
        let mut session = self.session.lock().await;
        let output = session.call(tool, arguments).await;
        if let Err(error) = self.sync(&session) {
            return ToolOutput::error(
                "the tools of this skill cannot be offered",
                serde_json::json!({"reason": error.to_string()}),
            );
        }
        output
    }
}

/// Each spec with its provider-safe alias, checked for collisions.
fn aliased(specs: &[ToolSpec]) -> Result<Vec<(String, &ToolSpec)>, Error> {
    let mut out: Vec<(String, &ToolSpec)> = Vec::with_capacity(specs.len());
    for spec in specs {
        let alias = names::alias(&spec.name).map_err(|e| Error::Alias {
            tool: spec.name.clone(),
            reason: e.to_string(),
        })?;
        if let Some((_, first)) = out.iter().find(|(a, _)| *a == alias) {
            return Err(Error::AliasCollision {
                alias: alias.into_owned(),
                first: first.name.clone(),
                second: spec.name.clone(),
            });
        }
        out.push((alias.into_owned(), spec));
    }
    Ok(out)
}

/// The [`AgentHook`] of a [`Conversation`]: before each model call, the preamble becomes
/// the session's system prompt and the registry offers the session's tools.
pub struct SkillsHook {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for SkillsHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillsHook").finish_non_exhaustive()
    }
}

impl AgentHook for SkillsHook {
    fn name(&self) -> Option<String> {
        Some("carnet".to_owned())
    }

    fn on_completion_call(
        &self,
        _context: &HookContext,
        _event: CompletionCallEvent<'_>,
    ) -> impl Future<Output = CompletionCallAction> + Send {
        let shared = Arc::clone(&self.shared);
        async move {
            let session = shared.session.lock().await;
            if let Err(error) = shared.sync(&session) {
                return CompletionCallAction::stop(error.to_string());
            }
            CompletionCallAction::patch(RequestPatch::new().preamble(session.system_prompt()))
        }
    }

    /// A call rig cannot dispatch is answered by the session, as carnet's own loop answers
    /// it: a tool not offered yet gets carnet's refusal (which skill brings it, how to load
    /// it), an unknown name its suggestions, malformed arguments carnet's message.
    ///
    /// rig runs no other call of an answer that holds such a call (they are answered
    /// "not executed"): a skill's tool called beside the `loadSkill` that brings it gets
    /// "load skill `…` first", and the load waits for the model's next turn. carnet's own
    /// loop ([`carnet_runtime::chat::run`]) runs the load first and then the tool.
    fn on_invalid_tool_call(
        &self,
        _context: &HookContext,
        event: &InvalidToolCallContext,
    ) -> impl Future<Output = Option<InvalidToolCallAction>> + Send {
        let shared = Arc::clone(&self.shared);
        let tool = event.tool_name.clone();
        let arguments = match &event.reason {
            InvalidToolCallReason::UnknownTool | InvalidToolCallReason::MalformedArguments { .. } => {
                Some(event.args.clone().unwrap_or_default())
            }
            // The program's own tool choice: rig's policy, not carnet's.
            _ => None,
        };
        async move {
            let arguments = arguments?;
            let output = {
                let mut session = shared.session.lock().await;
                let output = session.call_json(tool.as_str(), &arguments).await;
                shared.sync(&session).ok()?;
                output
            };
            Some(InvalidToolCallAction::skip(output.to_text()))
        }
    }
}
