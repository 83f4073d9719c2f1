//! Typed ids of a generated manifest's entities: a typo in a name is a compile error.

use std::fmt;

/// A typed reference to an agent of a generated manifest (`manifest::agents::RESEARCHER`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AgentId(&'static str);

/// A typed reference to a skill of a generated manifest (`manifest::skills::DATA_ANALYSIS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SkillId(&'static str);

/// A typed reference to a toolset of a generated manifest (`manifest::toolsets::SEARCH_TOOLS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolsetId(&'static str);

/// A typed reference to a tool of a generated manifest (`manifest::tools::BASIC_SEARCH`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolId {
    toolset: &'static str,
    name: &'static str,
}

macro_rules! name_id {
    ($($id:ident),*) => {$(
        impl $id {
            #[doc(hidden)]
            #[must_use]
            pub const fn __new(name: &'static str) -> Self {
                Self(name)
            }

            /// The name this id refers to.
            #[must_use]
            pub const fn name(self) -> &'static str {
                self.0
            }
        }

        impl fmt::Display for $id {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.0)
            }
        }

        impl AsRef<str> for $id {
            fn as_ref(&self) -> &str {
                self.0
            }
        }
    )*};
}

name_id!(AgentId, SkillId, ToolsetId);

impl ToolId {
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(toolset: &'static str, name: &'static str) -> Self {
        Self { toolset, name }
    }

    /// The tool's name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        self.name
    }

    /// The name of the toolset declaring the tool.
    #[must_use]
    pub const fn toolset(self) -> &'static str {
        self.toolset
    }
}

impl fmt::Display for ToolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl AsRef<str> for ToolId {
    fn as_ref(&self) -> &str {
        self.name
    }
}
