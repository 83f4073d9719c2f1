//! `carnet stats`: context tokens (o200k_base) per turn, progressive against everything up
//! front, and what loading each skill costs.

// Token counts stay far below 2^52 (and 2^63).
#![allow(clippy::cast_precision_loss, clippy::cast_possible_wrap)]

use carnet_runtime::tokens::{self, ContextTokens};
use carnet_runtime::{Carnet, Manifest};
use serde_json::{Value, json};

use crate::Failure;

struct Turn {
    label: String,
    tokens: ContextTokens,
    tools: usize,
}

struct SkillCost {
    skill: String,
    content: usize,
    context: i64,
}

pub(crate) fn run(
    manifest: &Manifest,
    agent: Option<&str>,
    load: &[String],
    skill_costs: bool,
    as_json: bool,
) -> Result<(), Failure> {
    let agents = crate::select_agents(manifest, agent)?;
    let carnet = Carnet::builder(manifest)
        .allow_unimplemented()
        .build()
        .map_err(|e| Failure::content(format!("error: {e}")))?;
    let mut reports = Vec::new();
    let mut text = String::new();
    for agent in agents {
        let name = &*agent.name;
        let mut session = crate::prompt::session(manifest, name, &[], |b| b)?;
        let initial: Vec<&str> = session.loaded_skills().collect();
        let label = if initial.is_empty() {
            "(none)".to_owned()
        } else {
            format!("{} (initial)", initial.join(", "))
        };
        let mut turns = vec![Turn {
            label,
            tokens: tokens::context(session.system_prompt(), session.tools()),
            tools: session.tools().len(),
        }];
        for skill in load {
            crate::prompt::session(manifest, name, std::slice::from_ref(skill), |b| b)?;
            session
                .load_skill(skill)
                .map_err(|o| Failure::usage(format!("error: {}", o.error_message().unwrap_or(""))))?;
            turns.push(Turn {
                label: format!("+ {skill}"),
                tokens: tokens::context(session.system_prompt(), session.tools()),
                tools: session.tools().len(),
            });
        }
        let baseline = carnet
            .everything_up_front(name)
            .map_err(|e| Failure::usage(format!("error: {e}")))?;
        let up_front = tokens::context(&baseline.system_prompt, &baseline.tools);

        let mut costs = Vec::new();
        let fresh = carnet
            .session(name)
            .map_err(|e| Failure::usage(format!("error: {e}")))?;
        let before_tools = tokens::tools(fresh.tools());
        let mut skills: Vec<&str> = agent.all_skills().filter(|s| !fresh.is_loaded(s)).collect();
        for global in manifest.app.global_skills.iter().map(|s| &**s) {
            if !skills.contains(&global) && !fresh.is_loaded(global) {
                skills.push(global);
            }
        }
        for skill in skills.into_iter().filter(|_| skill_costs) {
            let mut s = carnet
                .session(name)
                .map_err(|e| Failure::usage(format!("error: {e}")))?;
            if s.load_skill(skill).is_err() {
                continue;
            }
            // Loading changes the prompt's tail only (its stable sections come first): count
            // the tails, not the whole prompts, so large catalogs stay fast.
            let (old, new) = (fresh.system_prompt(), s.system_prompt());
            let common = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
            let common = old[..common].rfind('\n').map_or(0, |i| i + 1);
            let prompt_delta = tokens::count(&new[common..]) as i64 - tokens::count(&old[common..]) as i64;
            let tools_delta = tokens::tools(s.tools()) as i64 - before_tools as i64;
            let content = manifest
                .skill(skill)
                .map_or(0, |k| tokens::count(&carnet.variables().inject(&k.content)));
            costs.push(SkillCost {
                skill: skill.to_owned(),
                content,
                context: prompt_delta + tools_delta,
            });
        }

        if as_json {
            reports.push(json!({
                "agent": name,
                "encoding": "o200k_base",
                "turns": turns.iter().map(|t| json!({
                    "loaded": t.label, "system": t.tokens.system, "tools": t.tokens.tools,
                    "total": t.tokens.total(), "toolCount": t.tools,
                    "shareOfUpFront": share(t.tokens.total(), up_front.total()),
                })).collect::<Vec<_>>(),
                "everythingUpFront": {"system": up_front.system, "tools": up_front.tools, "total": up_front.total(), "toolCount": baseline.tools.len()},
                "skills": costs.iter().map(|c| json!({"skill": c.skill, "content": c.content, "context": c.context, "total": c.content as i64 + c.context})).collect::<Vec<_>>(),
            }));
        } else {
            text.push_str(&format!("agent `{name}` (tokens, o200k_base)\n\n"));
            text.push_str(&format!(
                "{:<4} {:<34} {:>7} {:>7} {:>7} {:>6} {:>10}\n",
                "turn", "loaded", "prompt", "tools", "total", "tools#", "vs all"
            ));
            for (i, t) in turns.iter().enumerate() {
                text.push_str(&format!(
                    "{:<4} {:<34} {:>7} {:>7} {:>7} {:>6} {:>9.1}%\n",
                    i,
                    truncate(&t.label, 34),
                    t.tokens.system,
                    t.tokens.tools,
                    t.tokens.total(),
                    t.tools,
                    share(t.tokens.total(), up_front.total())
                ));
            }
            text.push_str(&format!(
                "{:<4} {:<34} {:>7} {:>7} {:>7} {:>6} {:>9.1}%\n",
                "all",
                "everything up front",
                up_front.system,
                up_front.tools,
                up_front.total(),
                baseline.tools.len(),
                100.0
            ));
            if !costs.is_empty() {
                text.push_str(&format!(
                    "\n{:<34} {:>9} {:>9} {:>9}\n",
                    "loading skill costs", "content", "context", "total"
                ));
                for c in &costs {
                    text.push_str(&format!(
                        "{:<34} {:>9} {:>+9} {:>9}\n",
                        truncate(&c.skill, 34),
                        c.content,
                        c.context,
                        c.content as i64 + c.context
                    ));
                }
            }
            text.push('\n');
        }
    }
    if as_json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&Value::Array(reports)).expect("JSON values serialise")
        );
    } else {
        out!("{}", crate::printable(&text));
    }
    Ok(())
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (part as f64 / whole as f64 * 1000.0).round() / 10.0
    }
}

fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(width - 1).collect::<String>())
    }
}
