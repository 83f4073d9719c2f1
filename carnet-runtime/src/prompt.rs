//! The system prompt, in sections joined by `\n\n---\n\n` (TS Carnet's separator), stable
//! sections first so a provider's prefix cache survives skill loads:
//!
//! 1. the agent's prompt;
//! 2. `## Skills`: the full content of the initial skills;
//! 3. `## On-Demand Skills`: the catalog (name, description, toolsets; sorted by name;
//!    capped to a token budget if asked, pointing at `listAvailableSkills`);
//! 4. `## How to Load Skills`: naming exactly the meta-tools enabled;
//! 5. `## Loaded Skills`: the skills loaded during the session;
//! 6. `## Available Domain Tools`: the tools the session exposes, with the manifest's
//!    descriptions.
//!
//! Sections 1-4 depend only on the agent and are built once per agent and engine; 5 and 6
//! change with the session. Variables are injected into the agent prompt and skill
//! contents, not into names and descriptions (as in TS Carnet).

use std::fmt::Write as _;

use crate::engine::{CatalogFormat, ExposureMode, Inner, PromptOptions};
use crate::index::{AgentIx, SkillIx, ToolIx};
use crate::meta_tool::MetaTool;
use crate::variables::Variables;

pub(crate) const SEPARATOR: &str = "\n\n---\n\n";

/// Estimated tokens of a text: characters / 4, rounded up (the usual rule of thumb; exact
/// counts depend on the model's tokenizer).
pub(crate) fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// Sections 1-4 for `agent`, with `extra` variables over the engine's.
pub(crate) fn prefix(inner: &Inner, options: &PromptOptions, agent: AgentIx, extra: Option<&Variables>) -> String {
    let tables = &inner.agent_tables(agent);
    let a = inner.agent(agent);
    let inject = |text: &str| match extra {
        Some(extra) => inner.variables.inject_with(text, Some(extra)).into_owned(),
        None => inner.variables.inject(text).into_owned(),
    };
    let mut sections: Vec<String> = Vec::new();
    if options.agent_prompt {
        let prompt = inject(a.prompt.trim());
        if !prompt.is_empty() {
            sections.push(prompt);
        }
    }
    if options.initial_skills && !tables.initial.is_empty() {
        let contents: Vec<String> = tables
            .initial
            .iter()
            .map(|&s| inject(inner.skill(s).content.trim()))
            .collect();
        sections.push(format!(
            "## Skills\n\nYou have the following skills available immediately:\n\n{}",
            contents.join(SEPARATOR)
        ));
    }
    let mut on_demand: Vec<SkillIx> = tables
        .reachable
        .iter()
        .copied()
        .filter(|s| !tables.initial.contains(s))
        .collect();
    on_demand.sort_unstable(); // skills are sorted by name in the manifest
    if !on_demand.is_empty() {
        if options.catalog {
            sections.push(match options.catalog_format {
                CatalogFormat::Markdown => catalog(inner, options, &on_demand),
                CatalogFormat::Xml => xml_catalog(inner, options, &on_demand),
            });
        }
        if options.instructions {
            sections.push(instructions(inner));
        }
    }
    sections.join(SEPARATOR)
}

fn catalog(inner: &Inner, options: &PromptOptions, skills: &[SkillIx]) -> String {
    let load = inner.meta_name(MetaTool::LoadSkill);
    let mut out = format!("## On-Demand Skills\n\nYou can load these skills on-demand by using the `{load}` tool:\n\n");
    let header_tokens = estimate_tokens(&out);
    let mut used = header_tokens;
    for (i, &s) in skills.iter().enumerate() {
        let skill = inner.skill(s);
        let mut line = format!("- **{}**: {}", skill.name, skill.description.trim());
        if !skill.toolsets.is_empty() {
            let _ = write!(line, " (toolsets: {})", skill.toolsets.join(", "));
        }
        line.push('\n');
        if let Some(budget) = options.catalog_token_budget {
            let rest = skills.len() - i;
            if used + estimate_tokens(&line) > budget && i > 0 {
                if inner.has_meta(MetaTool::ListAvailableSkills) {
                    let list = inner.meta_name(MetaTool::ListAvailableSkills);
                    let _ = writeln!(out, "- … and {rest} more: call `{list}` to list and search them all");
                } else {
                    let _ = writeln!(out, "- … and {rest} more");
                }
                break;
            }
        }
        used += estimate_tokens(&line);
        out.push_str(&line);
    }
    out.truncate(out.trim_end().len());
    out
}

/// The catalog as the Agent Skills integration guide gives it (the `to-prompt` form of the
/// reference tool `skills-ref`): an `<available_skills>` block, one element per line,
/// XML-escaped; a skill's location is its MCP resource, `skill://<name>/SKILL.md`.
fn xml_catalog(inner: &Inner, options: &PromptOptions, skills: &[SkillIx]) -> String {
    let load = inner.meta_name(MetaTool::LoadSkill);
    let mut out = format!(
        "## On-Demand Skills\n\nYou can load these skills on-demand by using the `{load}` tool:\n\n<available_skills>\n"
    );
    let mut used = estimate_tokens(&out);
    for (i, &s) in skills.iter().enumerate() {
        let skill = inner.skill(s);
        let entry = format!(
            "<skill>\n<name>\n{}\n</name>\n<description>\n{}\n</description>\n<location>\n{}\n</location>\n</skill>\n",
            xml_escape(&skill.name),
            xml_escape(skill.description.trim()),
            xml_escape(&format!("skill://{}/SKILL.md", skill.name)),
        );
        if let Some(budget) = options.catalog_token_budget
            && i > 0
            && used + estimate_tokens(&entry) > budget
        {
            let rest = skills.len() - i;
            let list = inner.meta_name(MetaTool::ListAvailableSkills);
            if inner.has_meta(MetaTool::ListAvailableSkills) {
                let _ = writeln!(out, "<!-- {rest} more: call `{list}` to list and search them all -->");
            } else {
                let _ = writeln!(out, "<!-- {rest} more -->");
            }
            break;
        }
        used += estimate_tokens(&entry);
        out.push_str(&entry);
    }
    out.push_str("</available_skills>");
    out
}

/// `text` with `&`, `<`, `>`, `"` and `'` escaped (as Python's `html.escape`).
pub(crate) fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out
}

fn instructions(inner: &Inner) -> String {
    let name = |m| inner.meta_name(m);
    let has = |m| inner.has_meta(m);
    let mut out = format!(
        "## How to Load Skills\n\nTo access additional capabilities, use the `{}` tool to load a skill by name from the \"On-Demand Skills\" catalog above.\n\nWhen you load a skill:\n1. You receive its full documentation and instructions\n2. You receive a list of available files (if any) with descriptions\n",
        name(MetaTool::LoadSkill)
    );
    match inner.mode {
        ExposureMode::Dynamic => out.push_str("3. All associated toolsets and tools are automatically loaded\n"),
        ExposureMode::Deferred | ExposureMode::AllowedTools => out.push_str(
            "3. Its tools, listed among your tools already, become callable; calling one before loading its skill fails\n",
        ),
        ExposureMode::Dispatcher => {
            let _ = writeln!(
                out,
                "3. Its tools become callable through `{}`; their input schemas are in the result",
                name(MetaTool::CallTool)
            );
        }
    }
    if has(MetaTool::LoadSkillFile) {
        let _ = writeln!(
            out,
            "4. You can load specific files on-demand using the `{}` tool",
            name(MetaTool::LoadSkillFile)
        );
    }
    out.push_str("\nAvailable tools for progressive loading:\n");
    for meta in &inner.meta {
        let text = match meta {
            MetaTool::ListAvailableSkills => "List and search the skills you can load",
            MetaTool::LoadSkill => "Load a skill and get access to its tools",
            MetaTool::ListSkillToolsets => "List a skill's toolsets before loading them",
            MetaTool::LoadToolset => "Load one toolset's documentation and tools",
            MetaTool::LoadTool => "Load one tool's documentation and input schema",
            MetaTool::LoadSkillFile => "Load a specific file from a loaded skill",
            MetaTool::ListTools => "Browse the tools, a one-line summary each",
            MetaTool::DescribeTool => "Read one tool's full description and schemas",
            MetaTool::SearchTools => "Find the tools for a task, ranked, with the skill that brings each",
            MetaTool::CallTool => "Call a loaded tool by name with its arguments",
        };
        let _ = writeln!(out, "- `{}()` - {text}", name(*meta));
    }
    out.push_str("\nNote: tools associated to skills are automatically available once the skill is loaded.");
    out
}

/// Sections 5 and 6 for a session.
pub(crate) fn suffix(
    inner: &Inner,
    options: &PromptOptions,
    agent: AgentIx,
    loaded: &[SkillIx],
    exposed: &[ToolIx],
) -> String {
    let tables = &inner.agent_tables(agent);
    // One string, sections written into it as they come (a cold state's prompt is made per
    // load, so its suffix is on a turn's path).
    let mut out = String::new();
    let section = |out: &mut String| {
        if !out.is_empty() {
            out.push_str(SEPARATOR);
        }
    };
    if options.loaded_skills {
        let mut on_demand = loaded
            .iter()
            .copied()
            .filter(|s| !tables.initial.contains(s))
            .peekable();
        if on_demand.peek().is_some() {
            section(&mut out);
            out.push_str("## Loaded Skills\n\nSkills you have loaded during this session:\n\n");
            for s in on_demand {
                let skill = inner.skill(s);
                out.push_str("- **");
                out.push_str(&skill.name);
                out.push_str("**: ");
                out.push_str(skill.description.trim());
                for (n, toolset) in skill.toolsets.iter().enumerate() {
                    out.push_str(if n == 0 { " (toolsets: " } else { ", " });
                    out.push_str(toolset);
                }
                if !skill.toolsets.is_empty() {
                    out.push(')');
                }
                out.push('\n');
            }
            out.truncate(out.trim_end().len());
        }
    }
    if options.available_tools && !exposed.is_empty() {
        section(&mut out);
        out.push_str("## Available Domain Tools\n\nBased on your loaded skills, you can now use these tools");
        if inner.mode == ExposureMode::Dispatcher {
            let _ = write!(out, " through `{}`", inner.meta_name(MetaTool::CallTool));
        }
        out.push_str(":\n\n");
        for &id in exposed {
            let spec = &inner.tool(id).spec;
            out.push_str("- **");
            out.push_str(&spec.name);
            out.push_str("**: ");
            out.push_str(spec.description.trim());
            out.push('\n');
        }
        out.truncate(out.trim_end().len());
    }
    out
}
