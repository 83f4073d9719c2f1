//! Typed positions in the engine's tables. A manifest keeps each kind of entity sorted by
//! name in one list, and the engine numbers domain tools across toolsets; an index of one
//! kind cannot be used where another kind is meant.

macro_rules! index {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub(crate) struct $name(u32);

        impl $name {
            /// The index of position `i` (manifests are far below `u32::MAX` entities).
            pub(crate) fn new(i: usize) -> Self {
                $name(u32::try_from(i).expect("manifest tables have fewer than 2^32 entries"))
            }

            /// The position in its table.
            pub(crate) fn get(self) -> usize {
                self.0 as usize
            }
        }
    )*};
}

index!(
    /// An agent of the manifest.
    AgentIx,
    /// A skill of the manifest.
    SkillIx,
    /// A toolset of the manifest.
    ToolsetIx,
    /// A domain tool, numbered across toolsets in manifest order.
    ToolIx,
);
