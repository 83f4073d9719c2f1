//! What a session has loaded, and what follows from it: which skills, toolsets and tools the
//! agent can reach, and which tools are exposed. A session stores only what it loaded; what
//! is exposed is derived.

use crate::engine::Inner;
use crate::index::{AgentIx, SkillIx, ToolIx, ToolsetIx};

/// The loaded skills, toolsets and tools of one conversation, by index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Loaded {
    pub(crate) agent: AgentIx,
    /// Loaded skills in load order, initial ones first.
    pub(crate) skills: Vec<SkillIx>,
    /// Toolsets loaded directly (`loadToolset`).
    pub(crate) toolsets: Vec<ToolsetIx>,
    /// Tools loaded directly (`loadTool`).
    pub(crate) tools: Vec<ToolIx>,
}

/// A toolset in reach and why (see [`Loaded::loaded_toolsets`]).
pub(crate) struct ToolsetReach {
    pub(crate) toolset: ToolsetIx,
    pub(crate) direct: bool,
    pub(crate) skills: Vec<SkillIx>,
    pub(crate) tools: Vec<ToolIx>,
}

impl Loaded {
    /// The agent's initial state: its initial and global initial skills.
    pub(crate) fn initial(inner: &Inner, agent: AgentIx) -> Self {
        Loaded {
            agent,
            skills: inner.agent_tables(agent).initial.clone(),
            toolsets: Vec::new(),
            tools: Vec::new(),
        }
    }

    /// Skill `name`, if the agent may load it.
    pub(crate) fn reachable_skill(&self, inner: &Inner, name: &str) -> Option<SkillIx> {
        let s = inner.skill_index(name)?;
        inner.agent_tables(self.agent).reachable.contains(&s).then_some(s)
    }

    /// The skills the agent may load, in declaration order.
    pub(crate) fn reachable_skills<'a>(&self, inner: &'a Inner) -> &'a [SkillIx] {
        &inner.agent_tables(self.agent).reachable
    }

    /// The skills of the agent that bring `toolset`.
    pub(crate) fn skills_with_toolset(&self, inner: &Inner, toolset: ToolsetIx) -> Vec<SkillIx> {
        self.reachable_skills(inner)
            .iter()
            .copied()
            .filter(|&s| inner.skill_toolsets(s).contains(&toolset))
            .collect()
    }

    /// Every toolset the agent's skills bring, in manifest order.
    pub(crate) fn reachable_toolsets(&self, inner: &Inner) -> Vec<ToolsetIx> {
        let mut toolsets: Vec<ToolsetIx> = self
            .reachable_skills(inner)
            .iter()
            .flat_map(|&s| inner.skill_toolsets(s).iter().copied())
            .collect();
        toolsets.sort_unstable();
        toolsets.dedup();
        toolsets
    }

    /// Toolset `name`, if one of the agent's skills brings it.
    pub(crate) fn reachable_toolset(&self, inner: &Inner, name: &str) -> Option<ToolsetIx> {
        let t = inner.toolset_index(name)?;
        (!self.skills_with_toolset(inner, t).is_empty()).then_some(t)
    }

    /// The tool named `name` (canonical name or alias) that the agent can reach.
    pub(crate) fn reachable_tool(&self, inner: &Inner, name: &str) -> Option<ToolIx> {
        inner
            .tool_names
            .get(name)?
            .iter()
            .copied()
            .find(|&id| !self.skills_with_toolset(inner, inner.tool(id).toolset).is_empty())
    }

    /// The exposed tools, in the order they became available: the tools of the loaded
    /// skills' toolsets (in load order), of the toolsets loaded directly, then the tools
    /// loaded directly.
    pub(crate) fn exposed(&self, inner: &Inner) -> Vec<ToolIx> {
        let mut ids: Vec<ToolIx> = Vec::new();
        let mut push = |id: ToolIx| {
            if !ids.contains(&id) {
                ids.push(id);
            }
        };
        for &s in &self.skills {
            for &t in inner.skill_toolsets(s) {
                inner.toolset_tools(t).for_each(&mut push);
            }
        }
        for &t in &self.toolsets {
            inner.toolset_tools(t).for_each(&mut push);
        }
        self.tools.iter().copied().for_each(push);
        ids
    }

    pub(crate) fn is_exposed(&self, inner: &Inner, id: ToolIx) -> bool {
        let toolset = inner.tool(id).toolset;
        self.tools.contains(&id)
            || self.toolsets.contains(&toolset)
            || self.skills.iter().any(|&s| inner.skill_toolsets(s).contains(&toolset))
    }

    /// The exposed tool named `name` (canonical name or alias).
    pub(crate) fn exposed_named(&self, inner: &Inner, name: &str) -> Option<ToolIx> {
        let ids = inner.tool_names.get(name)?;
        ids.iter().copied().find(|&id| self.is_exposed(inner, id))
    }

    /// The loaded skill that brings `toolset`, if any.
    pub(crate) fn skill_bringing(&self, inner: &Inner, toolset: ToolsetIx) -> Option<SkillIx> {
        self.skills
            .iter()
            .copied()
            .find(|&s| inner.skill_toolsets(s).contains(&toolset))
    }

    /// Every toolset with a tool exposed, in the order they came in reach (as
    /// [`Loaded::exposed`]), and why: loaded directly, the loaded skills that bring it (in
    /// load order), its tools loaded one by one.
    pub(crate) fn loaded_toolsets(&self, inner: &Inner) -> Vec<ToolsetReach> {
        let mut order: Vec<ToolsetIx> = Vec::new();
        let mut add = |t: ToolsetIx| {
            if !order.contains(&t) {
                order.push(t);
            }
        };
        for &s in &self.skills {
            inner.skill_toolsets(s).iter().copied().for_each(&mut add);
        }
        self.toolsets.iter().copied().for_each(&mut add);
        self.tools.iter().map(|&id| inner.tool(id).toolset).for_each(&mut add);
        order
            .into_iter()
            .map(|t| ToolsetReach {
                toolset: t,
                direct: self.toolsets.contains(&t),
                skills: self
                    .skills
                    .iter()
                    .copied()
                    .filter(|&s| inner.skill_toolsets(s).contains(&t))
                    .collect(),
                tools: self
                    .tools
                    .iter()
                    .copied()
                    .filter(|&id| inner.tool(id).toolset == t)
                    .collect(),
            })
            .collect()
    }

    /// Loads a skill; returns whether it was not loaded yet.
    pub(crate) fn load_skill(&mut self, skill: SkillIx) -> bool {
        let new = !self.skills.contains(&skill);
        if new {
            self.skills.push(skill);
        }
        new
    }

    /// Loads a toolset directly; returns whether it was not loaded directly yet.
    pub(crate) fn load_toolset(&mut self, toolset: ToolsetIx) -> bool {
        let new = !self.toolsets.contains(&toolset);
        if new {
            self.toolsets.push(toolset);
        }
        new
    }

    /// Loads a tool directly; returns whether it was not exposed yet.
    pub(crate) fn load_tool(&mut self, inner: &Inner, tool: ToolIx) -> bool {
        let new = !self.is_exposed(inner, tool);
        if new {
            self.tools.push(tool);
        }
        new
    }

    /// Unloads a skill; returns whether it was loaded.
    pub(crate) fn unload_skill(&mut self, skill: SkillIx) -> bool {
        let before = self.skills.len();
        self.skills.retain(|&s| s != skill);
        self.skills.len() != before
    }

    /// Unloads a toolset loaded directly, and the tools of it loaded one by one; returns
    /// whether anything was unloaded.
    pub(crate) fn unload_toolset(&mut self, inner: &Inner, toolset: ToolsetIx) -> bool {
        let before = (self.toolsets.len(), self.tools.len());
        self.toolsets.retain(|&t| t != toolset);
        self.tools.retain(|&id| inner.tool(id).toolset != toolset);
        before != (self.toolsets.len(), self.tools.len())
    }
}
