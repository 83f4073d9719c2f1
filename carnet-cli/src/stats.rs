//! `carnet stats`: context tokens (o200k_base) per turn, progressive against everything up
//! front, and what loading each skill costs.

// Token counts stay far below 2^52 (and 2^63).
#![allow(clippy::cast_precision_loss, clippy::cast_possible_wrap)]

use carnet_runtime::tokens::{self, ContextTokens};
use carnet_runtime::{Carnet, ExposureMode, Manifest, MetaTool, Preset, block_on};
use serde_json::{Value, json};

use crate::Failure;
use crate::unseen::{Source, Unseen};

/// One model call of the conversation: a turn after the loads so far.
pub(crate) struct Turn {
    pub(crate) label: String,
    /// System prompt and tools.
    pub(crate) tokens: ContextTokens,
    tools: usize,
    /// The load results in the message history by then (they stay in it).
    history: usize,
    /// How much of this call is the previous call's request unchanged, hence cacheable:
    /// providers cache a prefix that starts with the tools and the system prompt, so a
    /// change there leaves nothing cacheable.
    pub(crate) stable: usize,
}

impl Turn {
    /// What the call costs: system prompt, tools and the history so far.
    pub(crate) fn total(&self) -> usize {
        self.tokens.total() + self.history
    }
}

struct SkillCost {
    skill: String,
    content: usize,
    context: i64,
    search: Option<RoundTrip>,
}

/// The other way to reach one of a skill's tools: `searchTools` for it, then `loadTool` of
/// the best hit, in the same exposure mode.
struct RoundTrip {
    /// The tool searched for: the first of the skill's first toolset.
    tool: String,
    /// The best hit, loaded.
    hit: String,
    /// The `searchTools` call and its result (they stay in the history).
    search: usize,
    /// The `loadTool` call, its result, and what the load adds to the prompt and tools.
    load_tool: i64,
    /// The model call between the two: the context, unchanged by the search, so cacheable
    /// (at the cached price).
    extra_call: f64,
}

impl RoundTrip {
    fn total(&self) -> f64 {
        self.search as f64 + self.load_tool as f64 + self.extra_call
    }
}

// One parameter per flag of `carnet stats`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    manifest: &Manifest,
    dir: Option<&std::path::Path>,
    agent: Option<&str>,
    load: &[String],
    mode: ExposureMode,
    skill_costs: bool,
    cached_price: f64,
    as_json: bool,
) -> Result<(), Failure> {
    let carnet = Carnet::builder(manifest)
        .allow_unimplemented()
        .mode(mode)
        .build()
        .map_err(|e| Failure::content(format!("error: {e}")))?;
    report(
        &carnet,
        Source::Markdown(dir),
        agent,
        load,
        skill_costs,
        cached_price,
        as_json,
    )
}

/// `--cached-price`: a share of the uncached price, from 0 to 1.
pub(crate) fn parse_ratio(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(ratio) if (0.0..=1.0).contains(&ratio) => Ok(ratio),
        _ => Err(format!(
            "`{text}` is not a share between 0 and 1 (0.1 is a tenth of the price)"
        )),
    }
}

/// What the input of a conversation costs with prompt caching, in tokens at the full
/// price: each call's cacheable prefix at `cached_price`, the rest in full.
fn effective(turns: &[Turn], cached_price: f64) -> f64 {
    turns
        .iter()
        .map(|t| t.stable as f64 * cached_price + (t.total() - t.stable) as f64)
        .sum()
}

/// [`run`] over an engine as built (its mode, its tools' schemas): what `carnet stats` and
/// a program's `stats` ([`crate::program`]) print.
/// From markdown, the counts leave out the real schemas of the tools implemented in Rust:
/// said on stderr and in each agent's `unknownInputSchemas`.
pub(crate) fn report(
    carnet: &Carnet,
    source: Source<'_>,
    agent: Option<&str>,
    load: &[String],
    skill_costs: bool,
    cached_price: f64,
    as_json: bool,
) -> Result<(), Failure> {
    let manifest = carnet.manifest();
    let mode = carnet.mode();
    let agents = crate::select_agents(manifest, agent)?;
    let mut reports = Vec::new();
    let mut text = String::new();
    for agent in agents {
        let name = &*agent.name;
        let unseen = Unseen::reachable(manifest, source, agent);
        let mut args = vec!["stats", name];
        for skill in load {
            args.extend(["--load", skill]);
        }
        let truth = unseen.command(&args);
        unseen.warn(
            &format!(
                "the counts for agent `{name}` take their schemas as `{{\"type\": \"object\", \"additionalProperties\": true}}` \
                 and are lower than what its model is sent"
            ),
            &truth,
        );
        let turns = conversation(carnet, name, load)?;
        let conversation: usize = turns.iter().map(Turn::total).sum();
        let stable: usize = turns.iter().map(|t| t.stable).sum();
        let baseline = carnet
            .everything_up_front(name)
            .map_err(|e| Failure::usage(format!("error: {e}")))?;
        let up_front = tokens::context(&baseline.system_prompt, &baseline.tools);
        // Everything up front needs no load: each call sends the same context, all of it
        // cacheable after the first.
        let up_front_conversation = up_front.total() * turns.len();

        let mut costs = Vec::new();
        let fresh = carnet
            .session(name)
            .map_err(|e| Failure::usage(format!("error: {e}")))?;
        let before_tools = tokens::tools(fresh.tools());
        let mut skills: Vec<&str> = agent.all_skills().filter(|s| !fresh.is_loaded(*s)).collect();
        for global in manifest.app.global_skills.iter().map(|s| &**s) {
            if !skills.contains(&global) && !fresh.is_loaded(global) {
                skills.push(global);
            }
        }
        let discovery = discovery_engine(carnet, skill_costs)?;
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
            let search = search_round_trip(discovery.as_ref(), name, skill, cached_price)?;
            costs.push(SkillCost {
                skill: skill.to_owned(),
                content,
                context: prompt_delta + tools_delta,
                search,
            });
        }

        let advice = advice(turns[0].total(), up_front.total());
        // With prompt caching: every call after the first sends the up-front context unchanged.
        let progressive_cost = effective(&turns, cached_price);
        let up_front_cost = up_front.total() as f64 * (1.0 + cached_price * (turns.len() - 1) as f64);
        if as_json {
            reports.push(json!({
                "advice": advice,
                "agent": name,
                "unknownInputSchemas": unseen.json(&truth),
                "encoding": "o200k_base",
                "mode": mode.name(),
                "turns": turns.iter().map(|t| json!({
                    "loaded": t.label, "system": t.tokens.system, "tools": t.tokens.tools,
                    "history": t.history, "call": t.total(), "cacheStable": t.stable,
                    "total": t.tokens.total(), "toolCount": t.tools,
                    "shareOfUpFront": share(t.total(), up_front.total()),
                })).collect::<Vec<_>>(),
                "conversation": {
                    "calls": turns.len(), "progressive": conversation, "upFront": up_front_conversation,
                    "shareOfUpFront": share(conversation, up_front_conversation),
                    "cacheStable": stable, "cacheStableShare": share(stable, conversation),
                },
                "everythingUpFront": {"system": up_front.system, "tools": up_front.tools, "total": up_front.total(), "toolCount": baseline.tools.len()},
                "withCaching": {
                    "cachedPrice": cached_price,
                    "progressive": progressive_cost.round(),
                    "upFront": up_front_cost.round(),
                    "shareOfUpFront": share_of(progressive_cost, up_front_cost),
                },
                "skills": costs.iter().map(|c| json!({
                    "skill": c.skill, "content": c.content, "context": c.context, "total": c.content as i64 + c.context,
                    "searchRoundTrip": c.search.as_ref().map(|r| json!({
                        "tool": r.tool, "hit": r.hit, "search": r.search, "loadTool": r.load_tool,
                        "extraCall": r.extra_call.round(), "total": r.total().round(),
                    })),
                })).collect::<Vec<_>>(),
            }));
        } else {
            text.push_str(&format!(
                "agent `{name}`, {} mode (tokens, o200k_base; a call = prompt + tools + the load results in the history)\n\n",
                mode.name()
            ));
            text.push_str(&format!(
                "{:<4} {:<30} {:>7} {:>7} {:>7} {:>7} {:>7} {:>6} {:>8}\n",
                "call", "loaded", "prompt", "tools", "history", "total", "cached", "tools#", "vs all"
            ));
            for (i, t) in turns.iter().enumerate() {
                text.push_str(&format!(
                    "{:<4} {:<30} {:>7} {:>7} {:>7} {:>7} {:>7} {:>6} {:>7.1}%\n",
                    i,
                    truncate(&t.label, 30),
                    t.tokens.system,
                    t.tokens.tools,
                    t.history,
                    t.total(),
                    t.stable,
                    t.tools,
                    share(t.total(), up_front.total())
                ));
            }
            text.push_str(&format!(
                "{:<4} {:<30} {:>7} {:>7} {:>7} {:>7} {:>7} {:>6} {:>7.1}%\n",
                "all",
                "everything up front",
                up_front.system,
                up_front.tools,
                0,
                up_front.total(),
                "",
                baseline.tools.len(),
                100.0
            ));
            text.push_str(&format!(
                "\nwhole conversation ({} calls): {conversation} tokens against {up_front_conversation} up front ({:.1}%); cache-stable prefix: {stable} tokens ({:.1}% of the calls)\n",
                turns.len(),
                share(conversation, up_front_conversation),
                share(stable, conversation)
            ));
            text.push_str(&format!(
                "with prompt caching (a cached token at {cached_price}× the price): {:.0} tokens' worth against {:.0} up front ({:.1}%)\n",
                progressive_cost,
                up_front_cost,
                share_of(progressive_cost, up_front_cost)
            ));
            if let Some(advice) = &advice {
                text.push_str(&format!("\nnote: {advice}\n"));
            }
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
            if costs.iter().any(|c| c.search.is_some()) {
                text.push_str(&format!(
                    "\nor a search round trip for one of its tools ({} mode: searchTools, then loadTool of the best hit;\n\
                     the model call between them resends the context, cacheable, at {cached_price}× the price)\n",
                    mode.name()
                ));
                text.push_str(&format!(
                    "{:<22} {:<24} {:>7} {:>8} {:>10} {:>7} {:>9}\n",
                    "skill", "tool (best hit)", "search", "loadTool", "extra call", "total", "vs skill"
                ));
                for c in &costs {
                    let Some(r) = &c.search else { continue };
                    let tool = if r.hit == r.tool {
                        r.tool.clone()
                    } else {
                        format!("{} ({})", r.tool, r.hit)
                    };
                    text.push_str(&format!(
                        "{:<22} {:<24} {:>7} {:>+8} {:>10.0} {:>7.0} {:>8.1}%\n",
                        truncate(&c.skill, 22),
                        truncate(&tool, 24),
                        r.search,
                        r.load_tool,
                        r.extra_call,
                        r.total(),
                        share_of(r.total(), (c.content as i64 + c.context) as f64)
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

/// The model calls of a conversation on `carnet` that loads `load` in turn: the first
/// call, then one after each load.
pub(crate) fn conversation(carnet: &Carnet, name: &str, load: &[String]) -> Result<Vec<Turn>, Failure> {
    let mut session = crate::prompt::session_on(carnet, name, &[])?;
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
        history: 0,
        stable: 0,
    }];
    let load_skill = session
        .tools()
        .iter()
        .find(|t| t.name == "loadSkill" || t.name == "load_skill")
        .map_or_else(|| "loadSkill".to_owned(), |t| t.name.clone());
    let mut previous = (session.system_prompt().to_owned(), session.tools().to_vec());
    let mut history = 0;
    for skill in load {
        crate::prompt::session_on(carnet, name, std::slice::from_ref(skill))?;
        // The load as the model makes it: its result joins the history for good.
        let output = block_on(session.call(&load_skill, json!({"skillName": skill})));
        if output.is_error {
            return Err(Failure::usage(format!(
                "error: {}",
                output.error_message().unwrap_or("")
            )));
        }
        let prefix_kept = previous.0 == session.system_prompt() && previous.1 == session.tools();
        let before = turns.last().map_or(0, Turn::total);
        history += tokens::count(&output.to_text());
        turns.push(Turn {
            label: format!("+ {skill}"),
            tokens: tokens::context(session.system_prompt(), session.tools()),
            tools: session.tools().len(),
            history,
            stable: if prefix_kept { before } else { 0 },
        });
        previous = (session.system_prompt().to_owned(), session.tools().to_vec());
    }
    Ok(turns)
}

/// The engine the search round trips run on: `carnet` itself when it offers `searchTools`,
/// else the same manifest and mode with the discovery preset (tools then have the schemas
/// the manifest gives). `None` when skill costs are off.
fn discovery_engine(carnet: &Carnet, skill_costs: bool) -> Result<Option<Carnet>, Failure> {
    if !skill_costs {
        return Ok(None);
    }
    if carnet.meta_tools().contains(&MetaTool::SearchTools) && carnet.meta_tools().contains(&MetaTool::LoadTool) {
        return Ok(Some(carnet.clone()));
    }
    Carnet::builder(carnet.manifest())
        .allow_unimplemented()
        .mode(carnet.mode())
        .preset(Preset::Discovery)
        .build()
        .map(Some)
        .map_err(|e| Failure::content(format!("error: {e}")))
}

/// What reaching one of `skill`'s tools by search costs on a fresh session of `agent`: the
/// query is the tool's name in words (what a model that knows the task might write). `None`
/// when the skill has no tool or the search finds nothing.
fn search_round_trip(
    carnet: Option<&Carnet>,
    agent: &str,
    skill: &str,
    cached_price: f64,
) -> Result<Option<RoundTrip>, Failure> {
    let Some(carnet) = carnet else { return Ok(None) };
    let manifest = carnet.manifest();
    let Some(tool) = manifest
        .skill(skill)
        .and_then(|s| s.toolsets.first())
        .and_then(|t| manifest.toolsets.iter().find(|ts| ts.name == *t))
        .and_then(|t| t.tools.first())
        .map(|t| t.name.to_string())
    else {
        return Ok(None);
    };
    let mut session = carnet
        .session(agent)
        .map_err(|e| Failure::usage(format!("error: {e}")))?;
    let context = tokens::context(session.system_prompt(), session.tools()).total();
    let [search_tools, load_tool] = [MetaTool::SearchTools, MetaTool::LoadTool].map(|m| {
        session
            .tools()
            .iter()
            .find(|t| {
                t.name == m.name(carnet_runtime::Naming::CamelCase)
                    || t.name == m.name(carnet_runtime::Naming::SnakeCase)
            })
            .map_or_else(
                || m.name(carnet_runtime::Naming::CamelCase).to_owned(),
                |t| t.name.clone(),
            )
    });
    let arguments = json!({"query": words(&tool)});
    let found = block_on(session.call(&search_tools, arguments.clone()));
    let Some(hit) = found.value["hits"][0]["name"].as_str().map(str::to_owned) else {
        return Ok(None);
    };
    let search = tokens::count(&arguments.to_string()) + tokens::count(&found.to_text());
    let tool_name = if load_tool == "load_tool" {
        "tool_name"
    } else {
        "toolName"
    };
    let arguments = json!({ tool_name: hit });
    let loaded = block_on(session.call(&load_tool, arguments.clone()));
    if loaded.is_error {
        return Ok(None);
    }
    let after = tokens::context(session.system_prompt(), session.tools()).total();
    let load_tool = (tokens::count(&arguments.to_string()) + tokens::count(&loaded.to_text())) as i64 + after as i64
        - context as i64;
    Ok(Some(RoundTrip {
        tool,
        hit,
        search,
        load_tool,
        extra_call: context as f64 * cached_price,
    }))
}

/// A tool name as words: `analyzeStatistics`, `file.read`, `list_units` → `analyze statistics`,
/// `file read`, `list units`.
fn words(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut previous_lower = false;
    for c in name.chars() {
        if c == '.' || c == '_' || c == '-' {
            out.push(' ');
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            out.push(' ');
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        out.extend(c.to_lowercase());
    }
    out
}

/// When the first call of the progressive conversation costs at least what sending every
/// skill and tool up front does (a small catalog: the meta-tools and the catalog outweigh
/// what they hold back), the advice to send everything.
fn advice(first_call: usize, up_front: usize) -> Option<String> {
    (first_call >= up_front).then(|| {
        format!(
            "the first call costs {first_call} tokens, sending every skill and tool up front {up_front}: \
             this catalog is small enough that progressive loading does not pay; load its skills \
             from the start (`initialSkills`) until it grows"
        )
    })
}

/// `part` as a percentage of `whole`, one decimal (costs in tokens' worth).
fn share_of(part: f64, whole: f64) -> f64 {
    if whole <= 0.0 {
        0.0
    } else {
        (part / whole * 1000.0).round() / 10.0
    }
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
