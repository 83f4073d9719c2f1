//! A toolset's name as a type, for [`crate::BoundToolset`]: what `#[carnet::toolset("math")]`
//! and the generated `Toolsets` struct both write from the name alone, without sharing a path.

use std::marker::PhantomData;

/// A toolset's name, spelled in its type's arguments: `ToolsetNamed<'m', 'a', 't', 'h'>` for
/// `math`. The characters a name leaves out are the defaults, `'\0'`, which rustc does not
/// print, so a toolset in the wrong field of `Toolsets` gets one error whose note reads
/// `expected BoundToolset<ToolsetNamed<'m', 'a', 't', 'h'>, _>`, `found
/// BoundToolset<ToolsetNamed<'f', 'i', 'l', 'e', 's'>>`. A name longer than 32 characters
/// continues in `Rest`, another `ToolsetNamed`.
///
/// (A tuple of one type per character, as before, made rustc's message about the tuple:
/// "expected a tuple with 4 elements, found one with 5 elements".) Never built: the type only
/// tells toolsets apart at compile time.
pub struct ToolsetNamed<
    const C0: char = '\0',
    const C1: char = '\0',
    const C2: char = '\0',
    const C3: char = '\0',
    const C4: char = '\0',
    const C5: char = '\0',
    const C6: char = '\0',
    const C7: char = '\0',
    const C8: char = '\0',
    const C9: char = '\0',
    const C10: char = '\0',
    const C11: char = '\0',
    const C12: char = '\0',
    const C13: char = '\0',
    const C14: char = '\0',
    const C15: char = '\0',
    const C16: char = '\0',
    const C17: char = '\0',
    const C18: char = '\0',
    const C19: char = '\0',
    const C20: char = '\0',
    const C21: char = '\0',
    const C22: char = '\0',
    const C23: char = '\0',
    const C24: char = '\0',
    const C25: char = '\0',
    const C26: char = '\0',
    const C27: char = '\0',
    const C28: char = '\0',
    const C29: char = '\0',
    const C30: char = '\0',
    const C31: char = '\0',
    Rest = (),
>(PhantomData<fn() -> Rest>);
