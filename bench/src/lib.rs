//! Synthetic, deterministic carnet catalogs for benchmarks.
//!
//! `catalog(n)` builds a manifest of `n` skills, each with one toolset of 3 to 10 tools,
//! descriptions of 100 to 300 characters and bodies of 2 to 8 KB, and one agent that may
//! load every skill (its first skill is initial). The text is generated from a fixed seed,
//! so every run measures the same content.

use serde_json::{Map, Value, json};

/// A small deterministic PRNG (xorshift64*): no dependency, same sequence everywhere.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (non-zero).
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `low..=high`.
    pub fn range(&mut self, low: usize, high: usize) -> usize {
        low + (self.next_u64() % (high - low + 1) as u64) as usize
    }
}

const WORDS: [&str; 32] = [
    "search",
    "data",
    "report",
    "analyse",
    "chart",
    "filter",
    "summary",
    "customer",
    "invoice",
    "schedule",
    "deploy",
    "review",
    "translate",
    "document",
    "policy",
    "metric",
    "forecast",
    "budget",
    "ticket",
    "incident",
    "release",
    "dataset",
    "query",
    "index",
    "archive",
    "contract",
    "survey",
    "email",
    "calendar",
    "inventory",
    "shipment",
    "audit",
];

/// Text of about `len` characters.
pub fn text(rng: &mut Rng, len: usize) -> String {
    let mut out = String::with_capacity(len + 16);
    while out.len() < len {
        if !out.is_empty() {
            out.push(if rng.range(0, 11) == 0 { '\n' } else { ' ' });
        }
        out.push_str(WORDS[rng.range(0, WORDS.len() - 1)]);
    }
    out
}

/// The manifest JSON of a catalog of `skills` skills.
#[must_use]
pub fn catalog_json(skills: usize) -> Value {
    let mut rng = Rng::new(0x00c0_ffee);
    let mut skill_map = Map::new();
    let mut toolset_map = Map::new();
    let mut names = Vec::with_capacity(skills);
    for i in 0..skills {
        let skill = format!("skill-{i:05}");
        let toolset = format!("toolset-{i:05}");
        let tools: Vec<Value> = (0..rng.range(3, 10))
            .map(|j| {
                let len = rng.range(100, 300);
                json!({"name": format!("tool{i}x{j}"), "description": text(&mut rng, len)})
            })
            .collect();
        let (description_len, body_len) = (rng.range(100, 300), rng.range(2048, 8192));
        skill_map.insert(
            skill.clone(),
            json!({"name": skill, "description": text(&mut rng, description_len), "toolsets": [toolset], "content": text(&mut rng, body_len)}),
        );
        let toolset_description = rng.range(100, 300);
        toolset_map.insert(
            toolset.clone(),
            json!({"name": toolset, "description": text(&mut rng, toolset_description), "tools": tools, "content": text(&mut rng, 500)}),
        );
        names.push(skill);
    }
    let initial: Vec<&String> = names.iter().take(1).collect();
    json!({
        "agents": {"agent": {"name": "agent", "description": "Uses every skill", "initialSkills": initial, "skills": names, "prompt": "You are a helpful agent."}},
        "skills": skill_map,
        "toolsets": toolset_map,
    })
}

/// The manifest of a catalog of `skills` skills.
///
/// # Panics
///
/// Never: the generated JSON is a valid manifest.
#[must_use]
pub fn catalog(skills: usize) -> carnet_runtime::Manifest {
    carnet_runtime::Manifest::from_value(&catalog_json(skills)).expect("the synthetic catalog is valid")
}

/// `target/` of the workspace, for a benchmark binary running from `target/<profile>/`.
///
/// # Panics
///
/// When the running binary is not two levels below a folder.
#[must_use]
pub fn target_dir() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the running binary's path");
    exe.parent()
        .and_then(std::path::Path::parent)
        .expect("the binary is in target/<profile>/")
        .to_path_buf()
}
