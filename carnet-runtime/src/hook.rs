//! Hooks: code run around calls, for logging, authorisation, argument rewriting and
//! short-circuits.
//!
//! A call runs through these steps, in order: the name is resolved (canonical name or
//! provider alias), the tool must be exposed in the session, the arguments must match its
//! input schema; then the **before** hooks run (registered for every call, for the tool, or
//! for its toolset, in the order they were added), the tool runs, and the **after** hooks
//! see the output. A call refused before the hooks (unknown tool, not loaded yet, invalid
//! arguments) still goes through the after hooks, so a logging hook sees every call; a
//! before hook never sees a call the session would refuse.

use std::any::Any;

use serde_json::{Value, json};

use crate::dispatch::ToolOutput;
use crate::extensions::Extensions;
use crate::manifest::Annotations;

/// What a hook decides before a call.
#[derive(Debug, Clone, PartialEq)]
pub enum Before {
    /// Run the call.
    Continue,
    /// Run the call with these arguments instead. They are checked against the tool's input
    /// schema again: arguments that no longer match make the call an error result.
    Rewrite(Value),
    /// Refuse the call; the model gets a tool error with this message.
    Deny(String),
    /// Skip the call and return this output instead.
    Respond(ToolOutput),
}

/// A call as hooks see it.
#[derive(Debug, Clone, Copy)]
pub struct CallInfo<'a> {
    /// The session's agent.
    pub agent: &'a str,
    /// The tool's canonical name (as called, for a name no tool has).
    pub tool: &'a str,
    /// The toolset of a domain tool.
    pub toolset: Option<&'a str>,
    /// The arguments (after the rewrites of earlier hooks).
    pub arguments: &'a Value,
    /// Whether it is a meta-tool.
    pub meta: bool,
    /// What the tool does to the world (`TOOLSET.md`'s `readOnly`, `destructive`, ..., or a
    /// remote tool's pin): what [`confirm_destructive`] reads.
    pub annotations: Annotations,
    /// The conversation's values (see [`crate::Session::insert`]).
    pub extensions: &'a Extensions,
}

impl<'a> CallInfo<'a> {
    /// The conversation's value of type `T`.
    #[must_use]
    pub fn extension<T: Any + Send + Sync>(&self) -> Option<&'a T> {
        self.extensions.get::<T>()
    }
}

/// Code run around calls: logging, authorisation, argument rewriting, caching,
/// short-circuits. Register it for every call ([`crate::CarnetBuilder::hook`]), one tool
/// ([`crate::CarnetBuilder::tool_hook`]) or one toolset
/// ([`crate::CarnetBuilder::toolset_hook`]).
///
/// # Examples
///
/// ```
/// use carnet_runtime::{Before, CallInfo, Hook, ToolOutput};
///
/// struct ReadOnly;
///
/// impl Hook for ReadOnly {
///     fn before(&self, call: &CallInfo<'_>) -> Before {
///         if call.tool.starts_with("delete") {
///             Before::Deny(format!("`{}` is disabled in read-only mode", call.tool))
///         } else {
///             Before::Continue
///         }
///     }
/// }
/// ```
pub trait Hook: Send + Sync + 'static {
    /// Runs before the call, once the tool is found and exposed and its arguments match its
    /// schema.
    fn before(&self, call: &CallInfo<'_>) -> Before {
        let _ = call;
        Before::Continue
    }

    /// Runs after the call, with its output (which it may change). Also runs for calls
    /// refused before the hooks.
    fn after(&self, call: &CallInfo<'_>, output: &mut ToolOutput) {
        let _ = (call, output);
    }
}

/// A hook that lets a call to a destructive tool run only when `confirm` says yes: the
/// tools whose annotations do not say they are read-only or non-destructive
/// ([`Annotations::is_destructive`]; a tool without annotations counts as destructive, as MCP
/// reads it). `confirm` sees the call (its tool, arguments and the conversation's values:
/// ask the user, check a permission, read a flag the user set); a refused call gives the
/// model an error result (`"code": "confirmation_required"`) saying the user did not
/// confirm it, and the tool does not run. Meta-tools never ask.
///
/// # Examples
///
/// ```
/// use carnet_runtime::hook::confirm_destructive;
///
/// /// What the user allowed in this conversation.
/// struct AllowWrites(bool);
///
/// let hook = confirm_destructive(|call| call.extension::<AllowWrites>().is_some_and(|a| a.0));
/// # let _ = hook;
/// // Carnet::new(&MANIFEST, toolsets).hook(hook).build()?;
/// // session.insert(AllowWrites(true)) once the user said yes.
/// ```
pub fn confirm_destructive<F>(confirm: F) -> impl Hook
where
    F: Fn(&CallInfo<'_>) -> bool + Send + Sync + 'static,
{
    ConfirmDestructive(confirm)
}

struct ConfirmDestructive<F>(F);

impl<F> Hook for ConfirmDestructive<F>
where
    F: Fn(&CallInfo<'_>) -> bool + Send + Sync + 'static,
{
    fn before(&self, call: &CallInfo<'_>) -> Before {
        if call.meta || !call.annotations.is_destructive() || (self.0)(call) {
            return Before::Continue;
        }
        Before::Respond(ToolOutput::error(
            format!(
                "tool `{}` may change or delete data and the user has not confirmed it: ask the user first",
                call.tool
            ),
            json!({"tool": call.tool, "code": "confirmation_required"}),
        ))
    }
}
