//! The hidden `const` constructors the generated code calls (`Skill::__new(..)`): the
//! structs are `#[non_exhaustive]`, so fields can change without breaking generated code.

use std::borrow::Cow;

use super::{Agent, Annotations, App, Bytes, List, Manifest, Skill, SkillFile, Text, Tool, Toolset};

impl Manifest {
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)] // one per field
    #[must_use]
    pub const fn __new(
        version: u32,
        app: App,
        agents: &'static [Agent],
        skills: &'static [Skill],
        toolsets: &'static [Toolset],
        variables: &'static [(Text, Text)],
        env_prefixes: &'static [Text],
        fingerprint: u64,
    ) -> Self {
        Self::__from_parts(
            version,
            app,
            Cow::Borrowed(agents),
            Cow::Borrowed(skills),
            Cow::Borrowed(toolsets),
            Cow::Borrowed(variables),
            Cow::Borrowed(env_prefixes),
            fingerprint,
        )
    }

    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)] // one per field
    #[must_use]
    pub const fn __from_parts(
        version: u32,
        app: App,
        agents: List<Agent>,
        skills: List<Skill>,
        toolsets: List<Toolset>,
        variables: List<(Text, Text)>,
        env_prefixes: List<Text>,
        fingerprint: u64,
    ) -> Self {
        Manifest {
            version,
            app,
            agents,
            skills,
            toolsets,
            variables,
            env_prefixes,
            fingerprint,
        }
    }
}

impl App {
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(global_initial_skills: &'static [Text], global_skills: &'static [Text]) -> Self {
        Self::__from_parts(Cow::Borrowed(global_initial_skills), Cow::Borrowed(global_skills))
    }

    #[doc(hidden)]
    #[must_use]
    pub const fn __from_parts(global_initial_skills: List<Text>, global_skills: List<Text>) -> Self {
        App {
            global_initial_skills,
            global_skills,
        }
    }
}

impl Agent {
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(
        name: &'static str,
        description: &'static str,
        initial_skills: &'static [Text],
        skills: &'static [Text],
        prompt: &'static str,
        extra: &'static str,
    ) -> Self {
        Self::__from_parts(
            Cow::Borrowed(name),
            Cow::Borrowed(description),
            Cow::Borrowed(initial_skills),
            Cow::Borrowed(skills),
            Cow::Borrowed(prompt),
            Cow::Borrowed(extra),
        )
    }

    #[doc(hidden)]
    #[must_use]
    pub const fn __from_parts(
        name: Text,
        description: Text,
        initial_skills: List<Text>,
        skills: List<Text>,
        prompt: Text,
        extra: Text,
    ) -> Self {
        Agent {
            name,
            description,
            initial_skills,
            skills,
            prompt,
            extra,
        }
    }
}

impl Skill {
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)] // one per field
    #[must_use]
    pub const fn __new(
        name: &'static str,
        description: &'static str,
        toolsets: &'static [Text],
        files: &'static [SkillFile],
        content: &'static str,
        license: Option<&'static str>,
        compatibility: Option<&'static str>,
        allowed_tools: &'static [Text],
        metadata: &'static str,
        extra: &'static str,
    ) -> Self {
        Self::__from_parts(
            Cow::Borrowed(name),
            Cow::Borrowed(description),
            Cow::Borrowed(toolsets),
            Cow::Borrowed(files),
            Cow::Borrowed(content),
            borrowed(license),
            borrowed(compatibility),
            Cow::Borrowed(allowed_tools),
            Cow::Borrowed(metadata),
            Cow::Borrowed(extra),
        )
    }

    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)] // one per field
    #[must_use]
    pub const fn __from_parts(
        name: Text,
        description: Text,
        toolsets: List<Text>,
        files: List<SkillFile>,
        content: Text,
        license: Option<Text>,
        compatibility: Option<Text>,
        allowed_tools: List<Text>,
        metadata: Text,
        extra: Text,
    ) -> Self {
        Skill {
            name,
            description,
            toolsets,
            files,
            content,
            license,
            compatibility,
            allowed_tools,
            metadata,
            extra,
            remote: None,
        }
    }

    /// A skill served by an MCP server: `remote` is [`Skill::remote`]'s JSON.
    #[doc(hidden)]
    #[must_use]
    pub const fn __remote(
        name: &'static str,
        description: &'static str,
        toolsets: &'static [Text],
        remote: &'static str,
    ) -> Self {
        Skill {
            name: Cow::Borrowed(name),
            description: Cow::Borrowed(description),
            toolsets: Cow::Borrowed(toolsets),
            files: Cow::Borrowed(&[]),
            content: Cow::Borrowed(""),
            license: None,
            compatibility: None,
            allowed_tools: Cow::Borrowed(&[]),
            metadata: Cow::Borrowed("{}"),
            extra: Cow::Borrowed("{}"),
            remote: Some(Cow::Borrowed(remote)),
        }
    }
}

impl SkillFile {
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(
        path: &'static str,
        description: Option<&'static str>,
        media_type: &'static str,
        is_text: bool,
        data: &'static [u8],
        digest: Option<&'static str>,
    ) -> Self {
        Self::__from_parts(
            Cow::Borrowed(path),
            borrowed(description),
            Cow::Borrowed(media_type),
            is_text,
            Cow::Borrowed(data),
            borrowed(digest),
        )
    }

    #[doc(hidden)]
    #[must_use]
    pub const fn __from_parts(
        path: Text,
        description: Option<Text>,
        media_type: Text,
        is_text: bool,
        data: Bytes,
        digest: Option<Text>,
    ) -> Self {
        SkillFile {
            path,
            description,
            media_type,
            is_text,
            data,
            digest,
        }
    }
}

impl Toolset {
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(
        name: &'static str,
        description: &'static str,
        tools: &'static [Tool],
        content: &'static str,
    ) -> Self {
        Self::__from_parts(
            Cow::Borrowed(name),
            Cow::Borrowed(description),
            Cow::Borrowed(tools),
            Cow::Borrowed(content),
        )
    }

    /// A remote toolset: `mcp` is [`Toolset::mcp`]'s JSON.
    #[doc(hidden)]
    #[must_use]
    pub const fn __remote(
        name: &'static str,
        description: &'static str,
        tools: &'static [Tool],
        content: &'static str,
        mcp: &'static str,
    ) -> Self {
        Toolset {
            name: Cow::Borrowed(name),
            description: Cow::Borrowed(description),
            tools: Cow::Borrowed(tools),
            content: Cow::Borrowed(content),
            mcp: Some(Cow::Borrowed(mcp)),
        }
    }

    #[doc(hidden)]
    #[must_use]
    pub const fn __from_parts(name: Text, description: Text, tools: List<Tool>, content: Text) -> Self {
        Toolset {
            name,
            description,
            tools,
            content,
            mcp: None,
        }
    }
}

impl Tool {
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(name: &'static str, description: &'static str, content: &'static str) -> Self {
        Self::__from_parts(Cow::Borrowed(name), Cow::Borrowed(description), Cow::Borrowed(content))
    }

    #[doc(hidden)]
    #[must_use]
    pub const fn __from_parts(name: Text, description: Text, content: Text) -> Self {
        Tool {
            name,
            description,
            content,
            remote: None,
            title: None,
            annotations: Annotations::NONE,
        }
    }
}

/// [`Tool::__new`] as a function the generated code can import (`tool("name", ..)`: the
/// most frequent line of a large manifest, ten bytes shorter).
#[doc(hidden)]
#[must_use]
pub const fn __tool(name: &'static str, description: &'static str, content: &'static str) -> Tool {
    Tool::__new(name, description, content)
}

/// A remote toolset's tool ([`Tool::remote`] is `remote`), as the generated code writes it.
#[doc(hidden)]
#[must_use]
pub const fn __remote_tool(
    name: &'static str,
    description: &'static str,
    content: &'static str,
    remote: &'static str,
) -> Tool {
    Tool {
        name: Cow::Borrowed(name),
        description: Cow::Borrowed(description),
        content: Cow::Borrowed(content),
        remote: Some(Cow::Borrowed(remote)),
        title: None,
        annotations: Annotations::NONE,
    }
}

/// A tool with a title or annotations (a remote one when `remote` is given), as the
/// generated code writes it; `hints` are read-only, destructive, idempotent, open world.
#[doc(hidden)]
#[must_use]
pub const fn __annotated_tool(
    name: &'static str,
    description: &'static str,
    content: &'static str,
    remote: Option<&'static str>,
    title: Option<&'static str>,
    hints: [Option<bool>; 4],
) -> Tool {
    let [read_only, destructive, idempotent, open_world] = hints;
    Tool {
        name: Cow::Borrowed(name),
        description: Cow::Borrowed(description),
        content: Cow::Borrowed(content),
        remote: borrowed(remote),
        title: borrowed(title),
        annotations: Annotations::__new(read_only, destructive, idempotent, open_world),
    }
}

const fn borrowed(s: Option<&'static str>) -> Option<Text> {
    match s {
        Some(s) => Some(Cow::Borrowed(s)),
        None => None,
    }
}

/// `source[start..end]` in a `const` context: the generated code embeds a content file once
/// (`include_str!`) and takes its body and description out of it by offset, so the
/// generated module's size follows the declarations, not the content. The offsets were
/// computed by the build script from the same bytes; a file edited between the build
/// script and rustc no longer fits them, which stops the build with this message (Cargo
/// reruns the build script on the next build, since the file changed).
#[doc(hidden)]
#[must_use]
pub const fn __text(source: &'static str, start: usize, end: usize) -> &'static str {
    if let Some((_, rest)) = source.split_at_checked(start)
        && let Some(len) = end.checked_sub(start)
        && let Some((text, _)) = rest.split_at_checked(len)
    {
        return text;
    }
    panic!("a carnet content file changed after build.rs read it: build again")
}
