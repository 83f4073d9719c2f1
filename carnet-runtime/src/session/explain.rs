//! Why a tool is or is not exposed ([`Session::explain`](super::Session::explain)), the
//! refusal a model gets for a tool it cannot call yet, and the everything-up-front baseline
//! progressive disclosure is measured against.

use std::fmt;

use serde_json::json;

use super::history::{History, LoadAction, LoadEvent, LoadKind};
use super::reach::Loaded;
use crate::dispatch::ToolOutput;
use crate::engine::{Carnet, ExposureMode, Inner};
use crate::index::{SkillIx, ToolIx};
use crate::meta_tool::MetaTool;
use crate::prompt;
use crate::suggest::similar;
use crate::telemetry::Failure;
use crate::tool::ToolSpec;

use super::types::SessionAgent;

/// Why a tool is or is not exposed in a session (see [`Session::explain`](super::Session::explain)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Explanation {
    /// One of the meta-tools offered.
    MetaTool,
    /// Exposed: its toolset is loaded, through `skill` (or directly with `loadToolset` or
    /// `loadTool` when `skill` is `None`).
    Exposed {
        /// The toolset declaring it.
        toolset: String,
        /// The loaded skill that brought the toolset.
        skill: Option<String>,
        /// The load that exposed it, from the session's history: when, and by which call.
        /// `None` for an initial skill (loaded when the session opened) or a load the
        /// history dropped at its cap.
        event: Option<LoadEvent>,
    },
    /// Not exposed yet: loading one of `skills` exposes it.
    NotLoaded {
        /// The toolset declaring it.
        toolset: String,
        /// The skills of the agent that would expose it.
        skills: Vec<String>,
        /// The newest unload that took it away (of one of `skills`, of its toolset or of
        /// the tool), from the session's history; `None` when it was never exposed.
        event: Option<LoadEvent>,
    },
    /// Declared, but no skill this agent may load reaches it.
    NotReachable {
        /// The toolsets declaring it.
        toolsets: Vec<String>,
    },
    /// No tool of that name.
    Unknown {
        /// Close names.
        similar: Vec<String>,
    },
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Explanation::MetaTool => f.write_str("a meta-tool, always offered"),
            Explanation::Exposed {
                toolset,
                skill: Some(skill),
                event,
            } => {
                write!(f, "exposed: toolset `{toolset}` of loaded skill `{skill}`")?;
                since(f, event.as_ref())
            }
            Explanation::Exposed {
                toolset,
                skill: None,
                event,
            } => {
                write!(f, "exposed: toolset `{toolset}` was loaded directly")?;
                since(f, event.as_ref())
            }
            Explanation::NotLoaded { toolset, skills, event } => {
                write!(
                    f,
                    "not exposed yet: toolset `{toolset}` comes with skill{} {}",
                    if skills.len() == 1 { "" } else { "s" },
                    skills.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
                )?;
                since(f, event.as_ref())
            }
            Explanation::NotReachable { toolsets } => write!(
                f,
                "not available to this agent: declared by {}, which none of its skills uses",
                toolsets.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
            ),
            Explanation::Unknown { similar } if similar.is_empty() => f.write_str("unknown tool"),
            Explanation::Unknown { similar } => write!(f, "unknown tool; similar: {}", similar.join(", ")),
        }
    }
}

/// ` (loaded skill `s` at … by …)`: the event behind an explanation, if the history has it.
fn since(f: &mut fmt::Formatter<'_>, event: Option<&LoadEvent>) -> fmt::Result {
    match event {
        Some(event) => write!(f, " ({event})"),
        None => Ok(()),
    }
}

/// Why tool `name` is or is not exposed in `loaded`; with the events of `history` that
/// explain it, when given.
pub(crate) fn explain(inner: &Inner, loaded: &Loaded, history: Option<&History>, tool: &str) -> Explanation {
    if inner.meta_by_name(tool).is_some() {
        return Explanation::MetaTool;
    }
    let Some(ids) = inner.tool_names.get(tool) else {
        let names = inner.tools.iter().map(|t| t.spec.name.as_str());
        return Explanation::Unknown {
            similar: similar(tool, names, 3),
        };
    };
    if let Some(id) = ids.iter().copied().find(|&id| loaded.is_exposed(inner, id)) {
        let toolset = inner.tool(id).toolset;
        let toolset_name = &*inner.toolset(toolset).name;
        let skill = loaded.skill_bringing(inner, toolset).map(|s| &*inner.skill(s).name);
        let bringing = loaded.skill_bringing(inner, toolset);
        let (kind, index) = match bringing {
            Some(s) => (LoadKind::Skill, s.get()),
            None if loaded.toolsets.contains(&toolset) => (LoadKind::Toolset, toolset.get()),
            None => (LoadKind::Tool, id.get()),
        };
        let event = history.and_then(|history| history.newest(inner, |_, k, i| (k, i) == (kind, index)));
        return Explanation::Exposed {
            toolset: toolset_name.to_owned(),
            skill: skill.map(str::to_owned),
            event,
        };
    }
    for &id in ids {
        let toolset = inner.tool(id).toolset;
        let skills = loaded.skills_with_toolset(inner, toolset);
        if !skills.is_empty() {
            let event = history.and_then(|history| {
                history.newest(inner, |action, kind, index| {
                    action == LoadAction::Unload
                        && match kind {
                            LoadKind::Skill => skills.contains(&SkillIx::new(index)),
                            LoadKind::Toolset => index == toolset.get(),
                            LoadKind::Tool => index == id.get(),
                        }
                })
            });
            return Explanation::NotLoaded {
                toolset: inner.toolset(toolset).name.to_string(),
                skills: skills.iter().map(|&s| inner.skill(s).name.to_string()).collect(),
                event,
            };
        }
    }
    Explanation::NotReachable {
        toolsets: ids
            .iter()
            .map(|&id| inner.toolset(inner.tool(id).toolset).name.to_string())
            .collect(),
    }
}

/// The error result for a call of a tool that is not exposed: which skill to load, or that
/// the agent cannot reach it, or (unknown) the tools it could call instead.
/// The error for a call of a tool that is not callable now, and why, for its span.
pub(crate) fn not_exposed(inner: &Inner, loaded: &Loaded, name: &str) -> (ToolOutput, Failure) {
    let meta_load = inner.meta_name(MetaTool::LoadSkill);
    match explain(inner, loaded, None, name) {
        Explanation::NotLoaded { toolset, skills, .. } => (
            ToolOutput::error(
                format!(
                    "tool `{name}` is not available yet: load skill `{}` first with `{meta_load}`",
                    skills.first().map_or("", String::as_str)
                ),
                json!({"tool": name, "toolset": toolset, "skills": skills}),
            ),
            Failure::NotExposed,
        ),
        // Which toolsets hold it is another agent's business: never named here.
        Explanation::NotReachable { .. } => (
            ToolOutput::error(
                format!(
                    "tool `{name}` is not available to agent `{}`",
                    inner.agent(loaded.agent).name
                ),
                json!({"tool": name}),
            ),
            Failure::NotAvailable,
        ),
        _ => {
            let mut available: Vec<&str> = inner.meta_specs.iter().map(|t| t.name.as_str()).collect();
            if inner.mode == ExposureMode::Dynamic {
                available.extend(
                    loaded
                        .exposed(inner)
                        .into_iter()
                        .map(|id| inner.tool(id).spec.name.as_str()),
                );
            }
            (
                ToolOutput::error(
                    format!("unknown tool `{name}`"),
                    json!({"tool": name, "available": available, "similar": similar(name, available.iter().copied(), 3)}),
                ),
                Failure::UnknownTool,
            )
        }
    }
}

/// What a model would receive without progressive disclosure: every skill the agent can
/// reach, in full, in the system prompt, and every domain tool those skills bring.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    /// The agent's prompt followed by the full content of every reachable skill.
    pub system_prompt: String,
    /// Every domain tool of every reachable skill's toolsets.
    pub tools: Vec<ToolSpec>,
}

impl Carnet {
    /// The everything-up-front baseline for `agent`, to measure what progressive
    /// disclosure saves. Fails like [`Carnet::session`] does for `agent`.
    #[allow(clippy::needless_pass_by_value)] // as `Carnet::session`
    pub fn everything_up_front<A: SessionAgent>(&self, agent: A) -> A::Output<Baseline> {
        let session = self.checked_session(agent.name());
        A::wrap(session.map(|session| baseline(&self.inner, &session.loaded)))
    }
}

fn baseline(inner: &Inner, loaded: &Loaded) -> Baseline {
    let tables = inner.agent_tables(loaded.agent);
    let mut sections = vec![
        inner
            .variables
            .inject(inner.agent(loaded.agent).prompt.trim())
            .into_owned(),
    ];
    let contents: Vec<String> = tables
        .reachable
        .iter()
        .map(|&s| inner.variables.inject(inner.skill(s).content.trim()).into_owned())
        .collect();
    if !contents.is_empty() {
        sections.push(format!("## Skills\n\n{}", contents.join(prompt::SEPARATOR)));
    }
    let mut ids: Vec<ToolIx> = Vec::new();
    for &s in &tables.reachable {
        for &t in inner.skill_toolsets(s) {
            for id in inner.toolset_tools(t) {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
    }
    Baseline {
        system_prompt: sections.join(prompt::SEPARATOR),
        tools: ids.iter().map(|&id| inner.tool(id).spec.clone()).collect(),
    }
}
