//! The `#[carnet::tool]` functions of a toolset item: found, their attributes taken off,
//! their signatures analysed, with the problems met on the way. Below the binding and the
//! code generated for each tool, which read what is found here.

use syn::{Attribute, Ident, Item, LitStr};

use super::attr::{self, doc_comment, is_tool_attr, tool_args};
use super::messages;
use super::signature::{ToolSignature, analyse, strip_param_docs};

/// A `#[carnet::tool]` function found in the toolset.
pub(super) struct ToolFn {
    pub(super) ident: Ident,
    pub(super) rename: Option<LitStr>,
    pub(super) docs: String,
    /// `None` when the signature was rejected (the error is already reported); the
    /// function still counts as the tool's implementation, so one mistake gives one error.
    pub(super) signature: Option<ToolSignature>,
    /// The attribute's arguments were invalid (reported): which tool it meant is unknown.
    pub(super) broken: bool,
}

/// The `#[carnet::tool]` functions of a toolset item, and the problems met finding them.
#[derive(Default)]
pub(super) struct FoundTools {
    pub(super) in_impl: bool,
    pub(super) tools: Vec<ToolFn>,
    pub(super) errors: Vec<syn::Error>,
    /// Functions that could not be bound: the declared tools they were probably meant for
    /// are not reported missing (one mistake, one error).
    pub(super) stray: Vec<String>,
    /// `#[tool]` was used through an import, which must be kept used.
    pub(super) imported_attr: bool,
}

impl FoundTools {
    /// Takes the `#[carnet::tool]` attribute off one function and records the function.
    fn visit(&mut self, attrs: &mut Vec<Attribute>, sig: &mut syn::Signature) {
        let Some(index) = attrs.iter().position(is_tool_attr) else {
            return;
        };
        let attr = attrs.remove(index);
        // Tools receive owned, deserialized arguments by design.
        attrs.push(syn::parse_quote!(#[allow(clippy::needless_pass_by_value)]));
        if let Some(extra) = attrs.iter().find(|a| is_tool_attr(a)) {
            self.errors
                .push(syn::Error::new_spanned(extra, messages::DUPLICATE_TOOL_ATTRIBUTE));
        }
        if attr.path().segments.len() == 1 {
            self.imported_attr = true;
        }
        let (tool_args, broken) = match tool_args(&attr) {
            Ok(args) => (args, false),
            Err(e) => {
                self.errors.push(e);
                (attr::ToolArgs::default(), true)
            }
        };
        let signature = analyse(sig, self.in_impl).map_err(|e| self.errors.push(e)).ok();
        strip_param_docs(sig);
        self.tools.push(ToolFn {
            ident: sig.ident.clone(),
            rename: tool_args.name,
            docs: doc_comment(attrs),
            signature,
            broken,
        });
    }

    /// A `#[carnet::tool]` in a module nested in the toolset: reported, not bound.
    fn visit_nested(&mut self, inner: &mut syn::ItemMod) {
        for nested in inner.content.iter_mut().flat_map(|(_, items)| items.iter_mut()) {
            if let Item::Fn(f) = nested
                && let Some(index) = f.attrs.iter().position(is_tool_attr)
            {
                let attr = f.attrs.remove(index);
                self.errors.push(syn::Error::new_spanned(
                    &attr,
                    messages::tool_in_nested_module(&f.sig.ident, &inner.ident),
                ));
                self.stray.push(f.sig.ident.to_string());
            }
        }
    }
}

/// Finds the `#[carnet::tool]` functions of an inline module or inherent impl block,
/// removing their attributes; an item of another kind is an error.
pub(super) fn collect_tools(item: &mut Item) -> syn::Result<FoundTools> {
    let mut found = FoundTools {
        in_impl: matches!(item, Item::Impl(_)),
        ..FoundTools::default()
    };
    match item {
        Item::Mod(module) => {
            let Some((_, items)) = &mut module.content else {
                return Err(syn::Error::new(module.ident.span(), messages::TOOLSET_ON_FILE_MODULE));
            };
            for item in items.iter_mut() {
                match item {
                    Item::Fn(f) => found.visit(&mut f.attrs, &mut f.sig),
                    Item::Mod(inner) => found.visit_nested(inner),
                    other => {
                        if let Some(attrs) = item_attrs(other)
                            && let Some(index) = attrs.iter().position(is_tool_attr)
                        {
                            let attr = attrs.remove(index);
                            found
                                .errors
                                .push(syn::Error::new_spanned(&attr, messages::TOOL_NOT_ON_FUNCTION));
                        }
                    }
                }
            }
        }
        Item::Impl(block) => {
            if let Some((path, _)) = &block.trait_ {
                return Err(syn::Error::new_spanned(path, messages::TOOLSET_ON_TRAIT_IMPL));
            }
            if !block.generics.params.is_empty() {
                return Err(syn::Error::new_spanned(
                    &block.generics,
                    messages::TOOLSET_ON_GENERIC_IMPL,
                ));
            }
            for item in &mut block.items {
                if let syn::ImplItem::Fn(f) = item {
                    found.visit(&mut f.attrs, &mut f.sig);
                }
            }
        }
        other => {
            let message = messages::TOOLSET_PLACEMENT;
            return Err(match other {
                Item::Struct(i) => syn::Error::new_spanned(&i.ident, message),
                Item::Enum(i) => syn::Error::new_spanned(&i.ident, message),
                Item::Fn(i) => syn::Error::new_spanned(&i.sig.ident, message),
                Item::Trait(i) => syn::Error::new_spanned(&i.ident, message),
                other => syn::Error::new_spanned(other, message),
            });
        }
    }
    Ok(found)
}

/// The attributes of items that are not functions or modules (for misplaced `#[carnet::tool]`).
pub(super) fn item_attrs(item: &mut Item) -> Option<&mut Vec<Attribute>> {
    match item {
        Item::Struct(i) => Some(&mut i.attrs),
        Item::Enum(i) => Some(&mut i.attrs),
        Item::Union(i) => Some(&mut i.attrs),
        Item::Const(i) => Some(&mut i.attrs),
        Item::Static(i) => Some(&mut i.attrs),
        Item::Type(i) => Some(&mut i.attrs),
        Item::Trait(i) => Some(&mut i.attrs),
        Item::Impl(i) => Some(&mut i.attrs),
        Item::Use(i) => Some(&mut i.attrs),
        _ => None,
    }
}
