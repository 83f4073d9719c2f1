//! `carnet list`: the agent → skills → toolsets → tools tree.

use carnet_runtime::{Agent, Manifest};
use serde_json::{Value, json};

use crate::Failure;

pub(crate) fn run(manifest: &Manifest, agent: Option<&str>, depth: u8, as_json: bool) -> Result<(), Failure> {
    let agents = crate::select_agents(manifest, agent)?;
    if as_json {
        let tree: Vec<Value> = agents.iter().map(|a| agent_json(manifest, a, depth)).collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&tree).expect("JSON values serialise")
        );
    } else {
        let mut out = String::new();
        for a in agents {
            render_agent(manifest, a, depth, &mut out);
        }
        out!("{}", crate::printable(&out));
    }
    Ok(())
}

/// The groups of skills an agent reaches, in prompt order.
fn groups<'a>(manifest: &'a Manifest, agent: &'a Agent) -> Vec<(&'static str, Vec<&'a str>)> {
    let initial: Vec<&str> = agent.initial_skills.iter().map(|s| &**s).collect();
    let on_demand: Vec<&str> = agent
        .skills
        .iter()
        .map(|s| &**s)
        .filter(|s| !initial.contains(s))
        .collect();
    let mut global: Vec<&str> = manifest
        .app
        .global_initial_skills
        .iter()
        .chain(manifest.app.global_skills.iter())
        .map(|s| &**s)
        .filter(|s| !initial.contains(s) && !on_demand.contains(s))
        .collect();
    global.dedup();
    [
        ("Initial Skills", initial),
        ("Skills", on_demand),
        ("Global Skills", global),
    ]
    .into_iter()
    .filter(|(_, list)| !list.is_empty())
    .collect()
}

fn agent_json(manifest: &Manifest, agent: &Agent, depth: u8) -> Value {
    let mut value = json!({"name": agent.name, "description": agent.description});
    if depth >= 2 {
        let skill = |name: &str| {
            let s = manifest.skill(name).expect("validated references");
            let mut v = json!({"name": s.name, "description": s.description});
            if depth >= 3 {
                v["toolsets"] = s
                    .toolsets
                    .iter()
                    .map(|t| {
                        let t = manifest.toolset(t).expect("validated references");
                        let mut tv = json!({"name": t.name, "description": t.description});
                        if depth >= 4 {
                            tv["tools"] = t
                                .tools
                                .iter()
                                .map(|tool| json!({"name": tool.name, "description": tool.description}))
                                .collect();
                        }
                        tv
                    })
                    .collect();
            }
            v
        };
        for (group, names) in groups(manifest, agent) {
            let key = match group {
                "Initial Skills" => "initialSkills",
                "Skills" => "skills",
                _ => "globalSkills",
            };
            value[key] = names.into_iter().map(skill).collect();
        }
    }
    value
}

fn render_agent(manifest: &Manifest, agent: &Agent, depth: u8, out: &mut String) {
    out.push_str(&format!("{}\n  {}\n", agent.name, first_line(&agent.description)));
    if depth < 2 {
        return;
    }
    let groups = groups(manifest, agent);
    for (gi, (group, names)) in groups.iter().enumerate() {
        let last_group = gi + 1 == groups.len();
        out.push_str(&format!("{}{group}\n", branch(last_group)));
        let prefix = indent(last_group);
        for (si, name) in names.iter().enumerate() {
            let last = si + 1 == names.len();
            let skill = manifest.skill(name).expect("validated references");
            out.push_str(&format!("{prefix}{}{} (skill)\n", branch(last), skill.name));
            let inner = format!("{prefix}{}", indent(last));
            out.push_str(&format!("{inner}    {}\n", first_line(&skill.description)));
            if depth < 3 {
                continue;
            }
            for (ti, toolset_name) in skill.toolsets.iter().enumerate() {
                let last_t = ti + 1 == skill.toolsets.len();
                let toolset = manifest.toolset(toolset_name).expect("validated references");
                out.push_str(&format!("{inner}{}{} (toolset)\n", branch(last_t), toolset.name));
                let inner_t = format!("{inner}{}", indent(last_t));
                out.push_str(&format!("{inner_t}    {}\n", first_line(&toolset.description)));
                if depth < 4 {
                    continue;
                }
                for (i, tool) in toolset.tools.iter().enumerate() {
                    let last_tool = i + 1 == toolset.tools.len();
                    out.push_str(&format!(
                        "{inner_t}{}{} - {} (tool)\n",
                        branch(last_tool),
                        tool.name,
                        first_line(&tool.description)
                    ));
                }
            }
        }
    }
}

fn branch(last: bool) -> &'static str {
    if last { "└── " } else { "├── " }
}

fn indent(last: bool) -> &'static str {
    if last { "    " } else { "│   " }
}

fn first_line(s: &str) -> &str {
    s.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("")
}
