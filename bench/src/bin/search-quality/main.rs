//! The retrieval benchmark of issue 26: does `searchTools` find the tool a request needs?
//!
//! Builds a catalog of real tool definitions (the official MCP servers pinned in
//! `bench/search/servers.json`, and the research agent's tools), compiles it with
//! carnet-codegen as a build script would, and adds synthetic noise tools (the generator of
//! `gen-catalog`) up to a total of 10,000. Both manifests are written to
//! `target/search-quality/` and read back with `Manifest::from_json`. Then, for each request
//! of `bench/search/queries.json`, it ranks the labelled tool three ways: `searchTools`
//! (limit 10), a substring baseline over names and descriptions (what regex tool search
//! does), and the skill catalog alone; and `searchTools` judged as the skill catalog is (is
//! the labelled tool's skill among the first skills its hits bring?). Prints markdown tables: recall@1, recall@5 and MRR@10
//! for each, on the real catalog and with the noise; the requests `searchTools` misses at 5;
//! the build time and the time of a query.
//!
//! Usage: `search-quality [total-tools] [queries.json]` (default 10,000 and
//! `bench/search/queries.json`; `bench/search/queries-holdout.json` holds requests written
//! after the synonyms of `carnet_manifest::search`, to see whether they carry over;
//! `queries-holdout-2.json` more, written after the last ranking change).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use carnet_runtime::{Carnet, Manifest, Preset, block_on};
use serde_json::{Value, json};

mod report;

use report::{report_by_skill, report_catalog, report_misses, report_recall, report_time};

/// The agent of the catalog: it may load every skill, none is loaded at the start.
const AGENT: &str = "bench";
/// Where the research agent's skills and toolsets are copied from.
const RESEARCH: &str = "examples/research-agent/carnet";
/// The hits asked of `searchTools`: a rank past it counts as a miss.
const LIMIT: usize = 10;
/// Engine builds timed per catalog, and rounds of all the queries timed at the largest.
const BUILDS: usize = 5;
const ROUNDS: usize = 20;

/// A real MCP server of the catalog (`bench/search/servers.json`).
struct Server {
    skill: String,
    description: String,
    command: Vec<String>,
    /// Its `mcp.lock.json`, relative to `bench/search/`.
    pin: String,
}

/// A labelled request: the tool that serves it, and others that serve it as well.
struct Query {
    query: String,
    tool: String,
    also: Vec<String>,
}

impl Query {
    fn accepts(&self, tool: &str) -> bool {
        self.tool == tool || self.also.iter().any(|t| t == tool)
    }
}

/// A catalog ready to query: the engine and what the baselines read.
struct Catalog {
    label: String,
    carnet: Carnet,
    /// Every tool: name, lowercased `name description`.
    tools: Vec<(String, String)>,
    /// Every skill: name, lowercased `name description`.
    skills: Vec<(String, String)>,
    /// Tool → the skill that brings it.
    skill_of: HashMap<String, String>,
    /// Median engine build.
    build: Duration,
}

/// Where each method ranked each query's tool (1-based; `None`: not found, or past the
/// limit for `searchTools`).
struct Ranks(Vec<Option<usize>>);

impl Ranks {
    fn recall(&self, k: usize) -> f64 {
        self.0.iter().filter(|r| r.is_some_and(|r| r <= k)).count() as f64 / self.0.len() as f64
    }

    fn mrr(&self) -> f64 {
        let sum: f64 = self
            .0
            .iter()
            .flatten()
            .filter(|&&r| r <= LIMIT)
            .map(|&r| 1.0 / r as f64)
            .sum();
        sum / self.0.len() as f64
    }
}

/// What `searchTools` answered for every query.
struct Searched {
    ranks: Ranks,
    /// The rank of the labelled tool's skill among the distinct skills of the hits, in the
    /// order they first come: `searchTools` judged as the skill catalog baseline is.
    skill_ranks: Ranks,
    /// The first hits' names, per query.
    top: Vec<Vec<String>>,
    /// Each call's time, every round.
    times: Vec<Duration>,
    /// The session's first call.
    first: Duration,
}

fn main() {
    let total: usize = std::env::args().nth(1).map_or(10_000, |n| {
        n.parse().expect("usage: search-quality [total-tools] [queries.json]")
    });
    let bench = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = bench.parent().expect("bench/ is in the workspace");
    let out = carnet_bench::target_dir().join("search-quality");
    let servers = read_servers(&bench.join("search/servers.json"));
    let queries = read_queries(
        &std::env::args()
            .nth(2)
            .map_or_else(|| bench.join("search/queries.json"), PathBuf::from),
    );

    let real = compile_real(root, &bench.join("search"), &out.join("catalog"), &servers);
    let real_tools = tool_count(&real);
    let full = with_noise(&real, total.saturating_sub(real_tools));
    let real = load(&out.join("real.manifest.json"), &real);
    let full = load(&out.join("full.manifest.json"), &full);
    check_labels(&real, &queries);

    let real = catalog("real", &real);
    let full = catalog("with noise", &full);
    let mut report = String::new();
    report_catalog(&mut report, &real, &full, &queries);

    let mut rows = Vec::new();
    let mut searched = Vec::new();
    let mut missing = None;
    for catalog in [&real, &full] {
        let substring = substring_ranks(catalog, &queries);
        let skills = skill_ranks(catalog, &queries);
        match search_ranks(catalog, &queries) {
            Ok(found) => {
                rows.push(("searchTools", catalog, Ranks(found.ranks.0.clone())));
                rows.push(("searchTools, skill level", catalog, Ranks(found.skill_ranks.0.clone())));
                searched.push(found);
            }
            Err(e) => missing = Some(e),
        }
        rows.push(("substring baseline", catalog, substring));
        rows.push(("skill catalog alone", catalog, skills));
    }
    report_recall(&mut report, &rows, queries.len());
    if let Some(e) = &missing {
        print!("{report}");
        eprintln!(
            "search-quality: `searchTools` did not answer; is it in this carnet-runtime's \
             `Preset::Discovery` (issue 26, item 1)? Only the baselines were measured.\n\
             The session answered: {e}"
        );
        std::process::exit(1);
    }
    report_by_skill(&mut report, &real, &rows, &queries);
    report_misses(&mut report, &real, &searched, &queries);
    report_time(&mut report, &real, &full, &searched[1], &queries);
    print!("{report}");
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn string(value: &Value, key: &str) -> String {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("`{key}` should be a string in {value}"))
        .to_owned()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

fn read_servers(path: &Path) -> Vec<Server> {
    let servers = read_json(path);
    let servers = servers.as_array().expect("servers.json is an array");
    servers
        .iter()
        .map(|s| Server {
            skill: string(s, "skill"),
            description: string(s, "description"),
            command: strings(&s["command"]),
            pin: string(s, "pin"),
        })
        .collect()
}

fn read_queries(path: &Path) -> Vec<Query> {
    let queries = read_json(path);
    let queries = queries.as_array().expect("queries.json is an array");
    queries
        .iter()
        .map(|q| Query {
            query: string(q, "query"),
            tool: string(q, "tool"),
            also: strings(&q["also"]),
        })
        .collect()
}

fn write(path: &Path, contents: &str) {
    fs::create_dir_all(path.parent().expect("a file has a parent")).expect("create the folder");
    fs::write(path, contents).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display())) {
        let entry = entry.expect("a folder entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::create_dir_all(to).expect("create the folder");
            fs::copy(entry.path(), &target).expect("copy the file");
        }
    }
}

/// Writes the real catalog as a carnet directory (a skill and a remote toolset per server,
/// its pin beside it; the research agent's skills and toolsets as they are) and compiles it
/// with carnet-codegen: the manifest JSON a build script would produce.
fn compile_real(root: &Path, search: &Path, dir: &Path, servers: &[Server]) -> Value {
    if dir.exists() {
        fs::remove_dir_all(dir).expect("clear the old catalog");
    }
    let quote = |s: &str| Value::from(s).to_string();
    let mut skills = Vec::new();
    for server in servers {
        let (skill, toolset) = (&server.skill, dir.join("toolsets").join(&server.skill));
        let (command, args) = server.command.split_first().expect("a command");
        write(
            &toolset.join("TOOLSET.md"),
            &format!(
                "---\nname: {skill}\ndescription: The official MCP {skill} server\nmcp:\n  command: {}\n  args: {}\n---\n",
                quote(command),
                json!(args)
            ),
        );
        let pin = fs::read_to_string(search.join(&server.pin)).expect("read the pin");
        write(&toolset.join("mcp.lock.json"), &pin);
        write(
            &dir.join(format!("skills/{skill}/SKILL.md")),
            &format!(
                "---\nname: {skill}\ndescription: {}\ntoolsets: [{skill}]\n---\nUse the tools of the {skill} server.\n",
                quote(&server.description)
            ),
        );
        skills.push(skill.clone());
    }
    let research = root.join(RESEARCH);
    copy_dir(&research.join("skills"), &dir.join("skills"));
    copy_dir(&research.join("toolsets"), &dir.join("toolsets"));
    // Its variables, env prefixes and lint allowances (camelCase skill names).
    fs::copy(research.join("carnet.config.json"), dir.join("carnet.config.json")).expect("copy the config");
    let mut research_skills: Vec<String> = fs::read_dir(research.join("skills"))
        .expect("the research agent's skills")
        .map(|e| e.expect("a folder entry").file_name().to_string_lossy().into_owned())
        .collect();
    research_skills.sort();
    skills.extend(research_skills);
    write(
        &dir.join(format!("agents/{AGENT}/AGENT.md")),
        &format!(
            "---\nname: {AGENT}\ndescription: Reaches every skill of the benchmark\nskills: [{}]\n---\nYou help.\n",
            skills.join(", ")
        ),
    );
    let manifest = carnet_codegen::Config::new()
        .dir(dir)
        .manifest()
        .unwrap_or_else(|e| e.exit());
    serde_json::from_str(&manifest.to_json_pretty()).expect("a manifest's JSON parses")
}

/// The tools of a manifest JSON, whichever form its toolsets take.
fn tool_count(manifest: &Value) -> usize {
    manifest["toolsets"]
        .as_object()
        .expect("toolsets")
        .values()
        .map(|t| {
            t.get("toolDefinitions")
                .or_else(|| t.get("tools"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        })
        .sum()
}

/// The real catalog plus `noise` synthetic tools: skills of `carnet_bench::catalog_json` (the
/// generator behind `gen-catalog`) taken in order, the last one's toolset cut to the count.
fn with_noise(real: &Value, noise: usize) -> Value {
    let mut manifest = real.clone();
    let generated = carnet_bench::catalog_json(noise.div_ceil(3));
    let mut left = noise;
    let mut names = Vec::new();
    for (name, skill) in generated["skills"].as_object().expect("skills") {
        if left == 0 {
            break;
        }
        let toolset_name = skill["toolsets"][0].as_str().expect("a toolset");
        let mut toolset = generated["toolsets"][toolset_name].clone();
        let tools = toolset["tools"].as_array_mut().expect("tools");
        tools.truncate(left);
        left -= tools.len();
        manifest["toolsets"][toolset_name] = toolset;
        manifest["skills"][name] = skill.clone();
        names.push(Value::from(name.as_str()));
    }
    assert_eq!(left, 0, "the generated catalog has enough tools");
    manifest["agents"][AGENT]["skills"]
        .as_array_mut()
        .expect("the agent's skills")
        .extend(names);
    manifest
}

/// Writes the manifest JSON and reads it back as a program would.
fn load(path: &Path, manifest: &Value) -> Manifest {
    let text = serde_json::to_string(manifest).expect("JSON");
    write(path, &text);
    Manifest::from_json(&fs::read_to_string(path).expect("read the manifest")).expect("a valid manifest")
}

/// Every label names a tool of the real catalog (never a noise tool).
fn check_labels(real: &Manifest, queries: &[Query]) {
    let bad: Vec<&str> = queries
        .iter()
        .flat_map(|q| std::iter::once(&q.tool).chain(&q.also))
        .filter(|t| real.tools_named(t).next().is_none())
        .map(String::as_str)
        .collect();
    assert!(bad.is_empty(), "labels that are no tool of the real catalog: {bad:?}");
}

fn catalog(label: &str, manifest: &Manifest) -> Catalog {
    let mut tools = Vec::new();
    let mut skills = Vec::new();
    let mut skill_of = HashMap::new();
    for skill in manifest.skills.iter() {
        skills.push((
            skill.name.to_string(),
            format!("{} {}", skill.name, skill.description).to_lowercase(),
        ));
        for toolset in skill.toolsets.iter() {
            let toolset = manifest.toolset(toolset).expect("a skill's toolset");
            for tool in toolset.tools.iter() {
                skill_of.insert(tool.name.to_string(), skill.name.to_string());
            }
        }
    }
    for toolset in manifest.toolsets.iter() {
        for tool in toolset.tools.iter() {
            tools.push((
                tool.name.to_string(),
                format!("{} {}", tool.name, tool.description).to_lowercase(),
            ));
        }
    }
    let mut builds = Vec::with_capacity(BUILDS);
    let mut carnet = None;
    for _ in 0..BUILDS {
        let start = Instant::now();
        let built = Carnet::builder(manifest)
            .allow_unimplemented()
            .preset(Preset::Discovery)
            .build()
            .expect("the engine builds");
        builds.push(start.elapsed());
        carnet = Some(built);
    }
    builds.sort_unstable();
    Catalog {
        label: label.to_owned(),
        carnet: carnet.expect("at least one build"),
        tools,
        skills,
        skill_of,
        build: builds[BUILDS / 2],
    }
}

/// The query's words as the regex variants of tool search match them: lowercased, split at
/// anything that is not a letter or a digit, three characters or more, each once.
fn words(query: &str) -> Vec<String> {
    let mut words: Vec<String> = query
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_owned)
        .collect();
    words.sort();
    words.dedup();
    words
}

/// The rank of the best accepted item when items are sorted by how many of `words` their
/// text contains (ties by name); `None` when it contains none.
fn overlap_rank(words: &[String], items: &[(String, String)], accepted: impl Fn(&str) -> bool) -> Option<usize> {
    let scores: Vec<usize> = items
        .iter()
        .map(|(_, text)| words.iter().filter(|w| text.contains(w.as_str())).count())
        .collect();
    items
        .iter()
        .zip(&scores)
        .filter(|((name, _), score)| accepted(name) && **score > 0)
        .map(|((name, _), &score)| {
            1 + items
                .iter()
                .zip(&scores)
                .filter(|((other, _), s)| **s > score || (**s == score && other < name))
                .count()
        })
        .min()
}

fn substring_ranks(catalog: &Catalog, queries: &[Query]) -> Ranks {
    Ranks(
        queries
            .iter()
            .map(|q| overlap_rank(&words(&q.query), &catalog.tools, |t| q.accepts(t)))
            .collect(),
    )
}

/// A hit when the skill of the labelled tool (or of one it accepts) ranks high.
fn skill_ranks(catalog: &Catalog, queries: &[Query]) -> Ranks {
    Ranks(
        queries
            .iter()
            .map(|q| {
                let wanted: Vec<&String> = std::iter::once(&q.tool)
                    .chain(&q.also)
                    .filter_map(|t| catalog.skill_of.get(t))
                    .collect();
                overlap_rank(&words(&q.query), &catalog.skills, |s| wanted.iter().any(|w| *w == s))
            })
            .collect(),
    )
}

/// Asks `searchTools` every query, `ROUNDS` times, through the public session API.
fn search_ranks(catalog: &Catalog, queries: &[Query]) -> Result<Searched, String> {
    let mut session = catalog.carnet.session(AGENT).expect("the agent");
    let mut times = Vec::with_capacity(queries.len() * ROUNDS);
    let mut ranks = Vec::with_capacity(queries.len());
    let mut skill_ranks = Vec::with_capacity(queries.len());
    let mut top = Vec::with_capacity(queries.len());
    let mut first = None;
    for round in 0..ROUNDS {
        for q in queries {
            let arguments = json!({"query": q.query, "limit": LIMIT});
            let start = Instant::now();
            let output = block_on(session.call("searchTools", arguments));
            let elapsed = start.elapsed();
            first.get_or_insert(elapsed);
            times.push(elapsed);
            if output.is_error || output.value["success"] != json!(true) {
                return Err(output.value.to_string());
            }
            if round > 0 {
                continue;
            }
            let hits = output.value["hits"]
                .as_array()
                .ok_or_else(|| format!("no `hits` array in {}", output.value))?;
            let field = |h: &Value, key: &str| h[key].as_str().unwrap_or_default().to_owned();
            let mut skills: Vec<String> = Vec::new();
            for skill in hits.iter().map(|h| field(h, "skill")) {
                if !skills.contains(&skill) {
                    skills.push(skill);
                }
            }
            let hits: Vec<String> = hits.iter().map(|h| field(h, "name")).collect();
            ranks.push(hits.iter().position(|h| q.accepts(h)).map(|i| i + 1));
            let wanted: Vec<&String> = std::iter::once(&q.tool)
                .chain(&q.also)
                .filter_map(|t| catalog.skill_of.get(t))
                .collect();
            skill_ranks.push(skills.iter().position(|s| wanted.contains(&s)).map(|i| i + 1));
            top.push(hits);
        }
    }
    Ok(Searched {
        ranks: Ranks(ranks),
        skill_ranks: Ranks(skill_ranks),
        top,
        times,
        first: first.unwrap_or_default(),
    })
}
