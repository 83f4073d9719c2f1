//! The meta-tools as vocabulary: which there are, their names under each [`Naming`], the
//! descriptions and input schemas the model reads. What each one does is the session's
//! (`session::meta`); the engine and the prompt only name them.

use carnet_manifest::order;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::manifest::Annotations;
use crate::tool::{ToolKind, ToolSpec};

/// How meta-tools and their parameters are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Naming {
    /// `loadSkill {skillName}` (TS Carnet's names).
    #[default]
    CamelCase,
    /// `load_skill {skill_name}`.
    SnakeCase,
}

pub use carnet_manifest::names::{META_TOOLS, META_TOOLS_SNAKE};

/// A meta-tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MetaTool {
    /// `listAvailableSkills {query?}`.
    ListAvailableSkills,
    /// `loadSkill {skillName}`. The parameter is `skillName` (TS Carnet's), not the design
    /// documents' `skill_id`: the model writes the name it read in the catalog, and a
    /// skill's name is its id.
    LoadSkill,
    /// `listSkillToolsets {skillName}`.
    ListSkillToolsets,
    /// `loadToolset {toolsetName}`.
    LoadToolset,
    /// `loadTool {toolName}`.
    LoadTool,
    /// `loadSkillFile {skillName, path}`.
    LoadSkillFile,
    /// `listTools {namespace?}`: browse the tools (name, one-line summary, namespace); never
    /// exposes anything.
    ListTools,
    /// `describeTool {name}`: one tool's full spec; never exposes anything.
    DescribeTool,
    /// `searchTools {query, limit?}`: the tools the agent can reach, ranked for a query
    /// (BM25 over names, descriptions, parameters, toolsets and skills); never exposes
    /// anything.
    SearchTools,
    /// `callTool {name, arguments}` (dispatcher mode only).
    CallTool,
}

impl MetaTool {
    /// Every meta-tool, in the order they are offered.
    pub const ALL: [MetaTool; 10] = [
        MetaTool::ListAvailableSkills,
        MetaTool::LoadSkill,
        MetaTool::ListSkillToolsets,
        MetaTool::LoadToolset,
        MetaTool::LoadTool,
        MetaTool::LoadSkillFile,
        MetaTool::ListTools,
        MetaTool::DescribeTool,
        MetaTool::SearchTools,
        MetaTool::CallTool,
    ];

    /// The tool's name under `naming`.
    #[must_use]
    pub fn name(self, naming: Naming) -> &'static str {
        let index = self as usize;
        match naming {
            Naming::CamelCase => META_TOOLS[index],
            Naming::SnakeCase => META_TOOLS_SNAKE[index],
        }
    }

    /// The description the model reads.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            MetaTool::ListAvailableSkills => {
                "List the skills you can load, with their descriptions; `query` filters them"
            }
            MetaTool::LoadSkill => "Load a skill by name to get its full content and capabilities",
            MetaTool::ListSkillToolsets => "List the toolsets of a skill with their descriptions and tool counts",
            MetaTool::LoadToolset => "Load a toolset's documentation and make its tools available",
            MetaTool::LoadTool => "Load one tool's documentation and input schema and make the tool available",
            MetaTool::LoadSkillFile => "Load the content of a file from a previously loaded skill",
            MetaTool::ListTools => {
                "List the tools you can load or call, each with a one-line summary; `namespace` narrows the list. Changes nothing"
            }
            MetaTool::DescribeTool => {
                "Describe one tool in full (description, input and output schemas) without making it callable"
            }
            MetaTool::SearchTools => {
                "Find the tools for a task: describe what you need in a few words; returns the best matches, each with the skill that brings it. Changes nothing"
            }
            MetaTool::CallTool => "Call a loaded domain tool by name with its arguments",
        }
    }

    /// Whether a call may load something (`loadSkill`, `loadToolset`, `loadTool`, and
    /// `searchTools` when search loads what it finds): the calls the session's history
    /// records.
    pub(crate) fn loads(self) -> bool {
        matches!(
            self,
            MetaTool::LoadSkill | MetaTool::LoadToolset | MetaTool::LoadTool | MetaTool::SearchTools
        )
    }

    /// The tool as the model sees it, under `naming`.
    #[must_use]
    pub fn spec(self, naming: Naming) -> ToolSpec {
        ToolSpec {
            name: self.name(naming).to_owned(),
            description: self.description().to_owned(),
            input_schema: self.shared_input_schema(naming),
            kind: ToolKind::Meta,
            toolset: None,
            output_schema: None,
            title: None,
            annotations: self.annotations(),
        }
    }

    /// What the meta-tool does to the world: the loading and browsing ones read content and
    /// change only the conversation's own state, so hosts need not ask before them;
    /// `callTool` runs domain tools of any kind, so it says nothing.
    #[must_use]
    pub const fn annotations(self) -> Annotations {
        match self {
            MetaTool::CallTool => Annotations::NONE,
            _ => Annotations::__new(Some(true), Some(false), Some(true), Some(false)),
        }
    }

    /// The parameter that takes the name of a skill, a toolset or a tool (its camelCase
    /// name), and which of them it names; `None` for the meta-tools without one.
    #[must_use]
    pub fn name_parameter(self) -> Option<(&'static str, NameKind)> {
        match self {
            MetaTool::LoadSkill | MetaTool::ListSkillToolsets | MetaTool::LoadSkillFile => {
                Some(("skillName", NameKind::Skill))
            }
            MetaTool::LoadToolset => Some(("toolsetName", NameKind::Toolset)),
            MetaTool::LoadTool => Some(("toolName", NameKind::Tool)),
            MetaTool::DescribeTool | MetaTool::CallTool => Some(("name", NameKind::Tool)),
            MetaTool::ListAvailableSkills | MetaTool::ListTools | MetaTool::SearchTools => None,
        }
    }

    /// Whether [`NameEnums`] lists names on this meta-tool's name parameter: on those that
    /// load or call (`loadSkill`, `loadSkillFile`, `loadToolset`, `loadTool`, `callTool`), not
    /// on the browsing ones (`listSkillToolsets`, `describeTool`), where a wrong name changes
    /// nothing and its error lists the right ones, so a list there costs tokens every turn
    /// for little.
    #[must_use]
    pub fn lists_names(self) -> bool {
        !matches!(self, MetaTool::ListSkillToolsets | MetaTool::DescribeTool) && self.name_parameter().is_some()
    }

    /// The tool as the model sees it, under `naming`, its name parameter
    /// ([`MetaTool::name_parameter`]) listing `names` as a JSON Schema `enum`: the names the
    /// model may write there, so a model whose output is constrained to the schema cannot
    /// invent one. No `enum` when `names` is empty or the meta-tool has no name parameter.
    #[must_use]
    pub fn spec_listing(self, naming: Naming, names: &[&str]) -> ToolSpec {
        let mut spec = self.spec(naming);
        if let (Some((camel, _)), false) = (self.name_parameter(), names.is_empty()) {
            let mut schema = self.input_schema(naming);
            schema["properties"][param(naming, camel)]["enum"] = json!(names);
            spec.input_schema = Arc::new(schema);
        }
        spec
    }

    /// The input schema under `naming`, made once per process: every session state's tool
    /// list holds the same `Arc`, so it is not rebuilt with each new state, and the provider
    /// writers find the tool's bytes by its address.
    pub(crate) fn shared_input_schema(self, naming: Naming) -> Arc<Value> {
        type Made = Vec<((MetaTool, Naming), Arc<Value>)>;
        static MADE: std::sync::Mutex<Made> = std::sync::Mutex::new(Vec::new());
        let mut made = MADE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, schema)) = made.iter().find(|(key, _)| *key == (self, naming)) {
            return Arc::clone(schema);
        }
        let schema = Arc::new(self.input_schema(naming));
        made.push(((self, naming), Arc::clone(&schema)));
        schema
    }

    /// The input schema under `naming`.
    #[must_use]
    pub fn input_schema(self, naming: Naming) -> Value {
        let p = |camel: &'static str| param(naming, camel);
        let string = |description: &str| json!({"type": "string", "description": description});
        let (properties, required): (Vec<(&str, Value)>, Vec<&str>) = match self {
            MetaTool::ListAvailableSkills => (
                vec![(
                    p("query"),
                    string("Words that the skill's name or description must contain"),
                )],
                vec![],
            ),
            MetaTool::LoadSkill => (
                vec![(p("skillName"), string("The name of the skill to load"))],
                vec![p("skillName")],
            ),
            MetaTool::ListSkillToolsets => (
                vec![(p("skillName"), string("The name of the skill"))],
                vec![p("skillName")],
            ),
            MetaTool::LoadToolset => (
                vec![(p("toolsetName"), string("The name of the toolset to load"))],
                vec![p("toolsetName")],
            ),
            MetaTool::LoadTool => (
                vec![(p("toolName"), string("The name of the tool to load"))],
                vec![p("toolName")],
            ),
            MetaTool::LoadSkillFile => (
                vec![
                    (p("skillName"), string("The name of the skill that contains the file")),
                    (p("path"), string("The path of the file to load (from the files array)")),
                ],
                vec![p("skillName"), p("path")],
            ),
            MetaTool::ListTools => (
                vec![(
                    p("namespace"),
                    string("Only the tools of this namespace (a tool name's dotted prefix, else its toolset)"),
                )],
                vec![],
            ),
            MetaTool::DescribeTool => (
                vec![(p("name"), string("The name of the tool to describe"))],
                vec![p("name")],
            ),
            MetaTool::SearchTools => (
                vec![
                    (
                        p("query"),
                        json!({"type": "string", "description": "What the tool should do, in a few words", "maxLength": 1024}),
                    ),
                    (
                        p("limit"),
                        json!({"type": "integer", "description": "The most tools to return (default 8)", "minimum": 1, "maximum": 50}),
                    ),
                ],
                vec![p("query")],
            ),
            MetaTool::CallTool => (
                vec![
                    (p("name"), string("The name of the loaded tool to call")),
                    (
                        p("arguments"),
                        json!({"type": "object", "description": "The tool's arguments, as its input schema describes"}),
                    ),
                ],
                vec![p("name"), p("arguments")],
            ),
        };
        json!({
            "type": "object",
            "properties": order::object(properties.into_iter().map(|(k, v)| (k.to_owned(), v))),
            "required": required,
            "additionalProperties": false,
        })
    }
}

/// What a meta-tool's name parameter names ([`MetaTool::name_parameter`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameKind {
    /// A skill the agent can load (`loadSkill`, `listSkillToolsets`, `loadSkillFile`).
    Skill,
    /// A toolset of those skills (`loadToolset`).
    Toolset,
    /// A domain tool of those toolsets (`loadTool`, `describeTool`, `callTool`).
    Tool,
}

/// Which meta-tool parameters list the names they accept as a JSON Schema `enum`: the names
/// of what the session's agent can reach (skills, their toolsets, their tools), as the Agent
/// Skills client guidance recommends, so a model cannot name a skill that does not exist
/// (llama.cpp, `OpenAI` strict mode and other constrained decoders keep the output inside the
/// `enum`; other models read it as a list). The lists are fixed per agent, never per
/// session state, so the tools array keeps its bytes from turn to turn in every mode.
///
/// The lists go on the meta-tools that load or call ([`MetaTool::lists_names`]). An `enum`
/// costs tokens on every turn (about 5 o200k tokens per name, on each of those meta-tools
/// that takes that kind of name: two for skills, `loadSkill` and `loadSkillFile`),
/// so each kind has a cap: an agent that reaches more names than the cap gets no `enum` for
/// that kind (a plain string, as without this option), and `0` turns a kind off. The default
/// lists skill names up to 64 and no toolset or tool names: the skill is the name a model
/// must pick from the catalog alone, while toolset and tool names reach it in load results,
/// `listTools` and `searchTools` results, and agents usually reach several times more tools
/// than skills (on the example agent the tool and toolset lists would cost 5% of turn 0; at
/// 1,000 tools, thousands of tokens a turn). `bench/RESULTS.md` has the measurements.
///
/// The session still checks every name itself: a name outside the list gets the usual
/// error result, with the names that exist and the closest ones.
///
/// # Examples
///
/// ```
/// use carnet_runtime::session::NameEnums;
///
/// let off = NameEnums::OFF;
/// assert_eq!(off.cap(carnet_runtime::session::NameKind::Skill), 0);
/// let with_tools = NameEnums { toolsets: 64, tools: 32, ..NameEnums::default() };
/// assert_eq!(with_tools.skills, 64);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameEnums {
    /// The most skill names listed (`loadSkill`, `loadSkillFile`).
    pub skills: usize,
    /// The most toolset names listed (`loadToolset`).
    pub toolsets: usize,
    /// The most tool names listed (`loadTool`, `callTool`).
    pub tools: usize,
}

impl NameEnums {
    /// No `enum` anywhere: every name parameter is a plain string.
    pub const OFF: NameEnums = NameEnums {
        skills: 0,
        toolsets: 0,
        tools: 0,
    };

    /// The cap of a kind of name.
    #[must_use]
    pub fn cap(self, kind: NameKind) -> usize {
        match kind {
            NameKind::Skill => self.skills,
            NameKind::Toolset => self.toolsets,
            NameKind::Tool => self.tools,
        }
    }
}

impl Default for NameEnums {
    fn default() -> Self {
        NameEnums {
            skills: 64,
            toolsets: 0,
            tools: 0,
        }
    }
}

/// A meta-tool parameter's name under `naming`.
pub(crate) fn param(naming: Naming, camel: &'static str) -> &'static str {
    match (naming, camel) {
        (Naming::SnakeCase, "skillName") => "skill_name",
        (Naming::SnakeCase, "toolsetName") => "toolset_name",
        (Naming::SnakeCase, "toolName") => "tool_name",
        _ => camel,
    }
}
