//! The fields of each content file, the keys of a remote toolset's `mcp:` and `a2a:` blocks
//! and those of `carnet.config.json`: one table per kind of file or block, with each field's
//! type, default, meaning and an example.
//!
//! The parser consults these tables: a frontmatter field is read through
//! the frontmatter reader only if its file's table has it, with the type the table gives
//! (checked whenever a file is parsed in a debug build, so every test that parses content
//! checks the tables), and the did-you-mean of an unknown key of a tool entry or of
//! `carnet.config.json` names the keys the tables list; the `mcp:` and `a2a:` tables are
//! compared with the keys their parser reads. The guide's content-format reference
//! (`docs/reference/format.md`) is generated from them by `tests/fields.rs`, so the reference
//! cannot list a field the parser does not read, or miss one it does.
//!
//! A field added to a parser goes here first, with an example that parses.

/// What a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Type {
    /// A string.
    String,
    /// A list of strings (names).
    Strings,
    /// A space-separated string, or a list of strings.
    Words,
    /// A mapping (any YAML or JSON values in it).
    Mapping,
    /// A mapping of names to strings.
    StringMap,
    /// `true` or `false`.
    Boolean,
    /// A non-negative integer.
    Integer,
    /// A list of entries, each described by another table.
    Entries(&'static Table),
    /// A mapping whose keys another table describes.
    Object(&'static Table),
    /// Anything: the value is read and ignored.
    Ignored,
}

impl Type {
    /// The type as the reference writes it.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Type::String => "string".into(),
            Type::Strings => "list of strings".into(),
            Type::Words => "string of space-separated words, or list of strings".into(),
            Type::Mapping => "mapping".into(),
            Type::StringMap => "mapping of strings to strings".into(),
            Type::Boolean => "boolean".into(),
            Type::Integer => "integer".into(),
            Type::Entries(table) => format!("list of [{}](#{})", table.title, table.anchor),
            Type::Object(table) => format!("[{}](#{})", table.title, table.anchor),
            Type::Ignored => "any (ignored)".into(),
        }
    }
}

/// One field of a file, or one key of a mapping.
#[derive(Debug, PartialEq, Eq)]
pub struct Field {
    /// The key as written.
    pub key: &'static str,
    /// What it holds.
    pub ty: Type,
    /// Whether a file without it is an error (`E0002`).
    pub required: bool,
    /// What an absent field means, as the reference writes it.
    pub default: &'static str,
    /// What the field does.
    pub doc: &'static str,
    /// The field as written in the file (YAML, or JSON for `carnet.config.json`): a line, or
    /// lines, that parse alone.
    pub example: &'static str,
}

/// The fields of one kind of file (or of one kind of entry in a file).
#[derive(Debug, PartialEq, Eq)]
pub struct Table {
    /// The heading of its section in the reference.
    pub title: &'static str,
    /// The section's anchor.
    pub anchor: &'static str,
    /// Where the file lives, or which field holds the entries.
    pub place: &'static str,
    /// What the file is, and what its body holds.
    pub intro: &'static str,
    /// Its fields, in the order the reference lists them.
    pub fields: &'static [Field],
}

impl Table {
    /// The field `key`, if the table has it.
    #[must_use]
    pub fn field(&self, key: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.key == key)
    }

    /// Every key, in order.
    pub fn keys(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.fields.iter().map(|f| f.key)
    }
}

pub(super) const fn field(
    key: &'static str,
    ty: Type,
    required: bool,
    default: &'static str,
    doc: &'static str,
    example: &'static str,
) -> Field {
    Field {
        key,
        ty,
        required,
        default,
        doc,
        example,
    }
}

const REQUIRED: &str = "required";

/// `content`, which TS Carnet's manifests carry: read and ignored in a markdown file.
const CONTENT: Field = field(
    "content",
    Type::Ignored,
    false,
    "",
    "Ignored: the body below the frontmatter is the content (TS Carnet writes `content` in \
     the manifests it builds, so a file made from one may hold it).",
    "content: ignored",
);

/// `agents/<name>/AGENT.md`.
pub static AGENT: Table = Table {
    title: "AGENT.md",
    anchor: "agentmd",
    place: "`agents/<name>/AGENT.md`",
    intro: "An agent: what a program starts a conversation with. The body below the \
            frontmatter is its system prompt, with `{{ NAME }}` variables; carnet adds the \
            catalog of the skills it may load and the instructions of those loaded.",
    fields: &[
        field(
            "name",
            Type::String,
            true,
            REQUIRED,
            "The agent's name: what `carnet.session(\"researcher\")` and the `carnet` commands \
             take, and the typed id `manifest::agents::RESEARCHER`.",
            "name: researcher",
        ),
        field(
            "description",
            Type::String,
            true,
            REQUIRED,
            "What the agent does; shown in its A2A card and MCP server's description.",
            "description: Researches questions and reports with sources",
        ),
        field(
            "skills",
            Type::Strings,
            false,
            "`[]`",
            "Skills the model may load: it sees each one's name and description in the \
             catalog, and loads it with `loadSkill`. Each must exist (`E0006`).",
            "skills: [web-search, data-analysis]",
        ),
        field(
            "initialSkills",
            Type::Strings,
            false,
            "`[]`",
            "Skills loaded from the first turn: their instructions are in the system prompt \
             and their tools exposed.",
            "initialSkills: [style-guide]",
        ),
        CONTENT,
    ],
};

/// An entry of a skill's `files`.
pub static SKILL_FILE: Table = Table {
    title: "files entries",
    anchor: "files-entries",
    place: "each item of `files` in `SKILL.md`",
    intro: "A document the model can load with `loadSkillFile` once the skill is loaded. The \
            file is read at build time and embedded; it must be a regular file inside the \
            skill's folder.",
    fields: &[
        field(
            "path",
            Type::String,
            true,
            REQUIRED,
            "The file, relative to the skill's folder, without `./` (`E0014`–`E0019`).",
            "path: reference/forms.md",
        ),
        field(
            "description",
            Type::String,
            true,
            REQUIRED,
            "When to load it: the model reads this in the loaded skill's instructions.",
            "description: Read when the user must fill a form",
        ),
    ],
};

/// `skills/<name>/SKILL.md`.
pub static SKILL: Table = Table {
    title: "SKILL.md",
    anchor: "skillmd",
    place: "`skills/<name>/SKILL.md`",
    intro: "A skill, as [Agent Skills](https://agentskills.io) defines it: the folder holds \
            `SKILL.md` and the files it lists. The body is the skill's instructions, sent to \
            the model when it loads the skill; its tools are exposed then.",
    fields: &[
        field(
            "name",
            Type::String,
            true,
            REQUIRED,
            "The skill's name, as agents list it; Agent Skills style (`a-z`, `0-9`, `-`) and \
             equal to the folder's name, or a warning (`W0003`, `W0005`).",
            "name: web-search",
        ),
        field(
            "description",
            Type::String,
            true,
            REQUIRED,
            "What the skill is for and when to load it: the model reads it in the catalog on \
             every turn (1,024 characters at most, `W0004`).",
            "description: Searches the web; use for questions about current events",
        ),
        field(
            "toolsets",
            Type::Strings,
            false,
            "`[]`",
            "Toolsets whose tools are exposed once the skill is loaded. Each must exist \
             (`E0007`).",
            "toolsets: [web-tools]",
        ),
        field(
            "files",
            Type::Entries(&SKILL_FILE),
            false,
            "`[]`",
            "Documents the model can load with `loadSkillFile` once the skill is loaded.",
            "files:\n  - path: reference/forms.md\n    description: Read when the user must fill a form",
        ),
        field(
            "license",
            Type::String,
            false,
            "none",
            "Agent Skills' license of the skill; written into the manifest.",
            "license: Apache-2.0",
        ),
        field(
            "compatibility",
            Type::String,
            false,
            "none",
            "Agent Skills' note on what the skill needs from its environment (500 characters \
             at most, `W0015`).",
            "compatibility: Needs poppler-utils (pdftotext)",
        ),
        field(
            "allowed-tools",
            Type::Words,
            false,
            "`[]`",
            "Agent Skills' (experimental) list of tools the skill may use without asking; \
             written into the manifest, not enforced by carnet.",
            "allowed-tools: Bash(git:*) Read",
        ),
        field(
            "metadata",
            Type::Mapping,
            false,
            "`{}`",
            "Anything else, for your programs: written into the manifest as is.",
            "metadata: { owner: research-team }",
        ),
        CONTENT,
    ],
};

/// An entry of a toolset's `tools`, when written as a mapping.
pub static TOOL: Table = Table {
    title: "tools entries",
    anchor: "tools-entries",
    place: "each item of `tools` in `TOOLSET.md`",
    intro: "A tool, written as a name (`- search`, its description then comes from a tool \
            file beside `TOOLSET.md`) or as a mapping with these keys. Another key is a \
            warning with a did-you-mean (`W0016`).",
    fields: &[
        field(
            "name",
            Type::String,
            true,
            REQUIRED,
            "The tool's name, as the model calls it: 1 to 64 of `a-z A-Z 0-9 _ - .` (`E0012`); \
             a `.` is sent to providers as `_`. The typed id is `manifest::tools::BASIC_SEARCH`.",
            "name: basicSearch",
        ),
        field(
            "description",
            Type::String,
            false,
            "from the tool file `<name>.md`, else `E0022`",
            "What the tool does: the model chooses tools by it.",
            "description: Searches the web and returns the top results",
        ),
        field(
            "parameters",
            Type::StringMap,
            false,
            "none (the `///` docs of the function's parameters)",
            "Each named parameter's description, put in the input schema; \
             `#[carnet::toolset]` checks them against the function both ways.",
            "parameters:\n  query: Words to search for.\n  limit: At most this many results.",
        ),
        field(
            "title",
            Type::String,
            false,
            "none",
            "A name for people (MCP's `title`), shown by hosts.",
            "title: Search the web",
        ),
        field(
            "readOnly",
            Type::Boolean,
            false,
            "unset",
            "The tool changes nothing (MCP's `readOnlyHint`).",
            "readOnly: true",
        ),
        field(
            "destructive",
            Type::Boolean,
            false,
            "unset",
            "The tool may destroy something (MCP's `destructiveHint`): hosts ask first, and \
             `carnet::tools::confirm_destructive` holds it back. Not with `readOnly: true` \
             (`E0043`).",
            "destructive: true",
        ),
        field(
            "idempotent",
            Type::Boolean,
            false,
            "unset",
            "Calling it twice with the same arguments does no more than once (MCP's \
             `idempotentHint`).",
            "idempotent: true",
        ),
        field(
            "openWorld",
            Type::Boolean,
            false,
            "unset",
            "The tool reaches beyond the program (the web, other people) (MCP's \
             `openWorldHint`).",
            "openWorld: true",
        ),
    ],
};

/// `toolsets/<name>/TOOLSET.md`.
pub static TOOLSET: Table = Table {
    title: "TOOLSET.md",
    anchor: "toolsetmd",
    place: "`toolsets/<name>/TOOLSET.md`",
    intro: "A toolset: the tools a skill exposes when it is loaded. Its tools are bound to \
            Rust functions by `#[carnet::toolset(\"<name>\")]`, or served by an MCP server \
            (`mcp:`). The body is documentation for people; it is not sent to the model.",
    fields: &[
        field(
            "name",
            Type::String,
            true,
            REQUIRED,
            "The toolset's name, as skills list it and `#[carnet::toolset(\"...\")]` names it; \
             its field in the generated `Toolsets` is the name in `snake_case`.",
            "name: web-tools",
        ),
        field(
            "description",
            Type::String,
            true,
            REQUIRED,
            "What the tools are for (`listSkillToolsets` shows it).",
            "description: Tools for reading the web",
        ),
        field(
            "tools",
            Type::Entries(&TOOL),
            false,
            "`[]` (for a remote toolset: every tool of the pin)",
            "The tools, each a name or a mapping.",
            "tools:\n  - name: fetchPage\n    description: Fetches a page as text\n    readOnly: true",
        ),
        field(
            "mcp",
            Type::Object(&MCP_SERVER),
            false,
            "none",
            "Makes the toolset remote: its tools are those of an MCP server, checked against \
             the pin `mcp.lock.json` that `carnet mcp pin` writes.",
            "mcp:\n  command: uvx\n  args: [mcp-server-time]",
        ),
        field(
            "skills",
            Type::Strings,
            false,
            "every skill the server serves",
            "For a remote toolset: the skills of its server (MCP's Skills extension) to offer.",
            "skills: [style-guide]",
        ),
        field(
            "a2a",
            Type::Object(&A2A_SERVER),
            false,
            "none",
            "Makes the toolset remote on an A2A agent instead of an MCP server.",
            "a2a:\n  url: https://agents.example.com",
        ),
        CONTENT,
    ],
};

/// `toolsets/<toolset>/<tool>.md`.
pub static TOOL_FILE: Table = Table {
    title: "Tool files",
    anchor: "tool-files",
    place: "`toolsets/<toolset>/<tool>.md`, beside `TOOLSET.md`",
    intro: "The description of a tool the toolset lists by name. The body is the tool's \
            longer documentation, kept in the manifest.",
    fields: &[
        field(
            "name",
            Type::String,
            true,
            REQUIRED,
            "The tool it describes: one of the toolset's `tools` (`E0021`).",
            "name: fetchPage",
        ),
        field(
            "description",
            Type::String,
            true,
            REQUIRED,
            "What the tool does: the model chooses tools by it.",
            "description: Fetches a page as text",
        ),
        CONTENT,
    ],
};

mod config;
mod remote;
pub use config::{CONFIG, CONFIG_APP, CONFIG_LIMITS};
pub use remote::{A2A_SERVER, MCP_SERVER};

/// Every table, in the reference's order.
pub static ALL: &[&Table] = &[
    &AGENT,
    &SKILL,
    &SKILL_FILE,
    &TOOLSET,
    &TOOL,
    &MCP_SERVER,
    &A2A_SERVER,
    &TOOL_FILE,
    &CONFIG,
    &CONFIG_APP,
    &CONFIG_LIMITS,
];

#[cfg(test)]
mod tests;
