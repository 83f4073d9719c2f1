//! Expansion of `#[carnet::toolset]` and `#[carnet::tool]`, for `carnet-macros`. Takes and
//! returns `proc_macro2` tokens so every path is unit-testable.
//!
//! The toolset attribute reads the manifest the build script wrote (`CARNET_MANIFEST`, or
//! `$OUT_DIR/carnet/bindings.json`), binds each `#[carnet::tool]` function to a tool the
//! toolset declares (exact name, then the one declared name equal after removing case, `_`,
//! `-` and `.`), checks the signatures, and generates `toolset()`: the implementations typed
//! by the toolset's identity, for the generated `Toolsets` struct.
//!
//! Descriptions come from the manifest, the single source of truth: a function's doc
//! comment is used only for a tool whose declaration has no description. On error the item
//! is emitted unchanged (minus the `#[carnet::tool]` attributes) with a `toolset()` of the
//! right type, so one mistake gives one error.

mod attr;
mod emit;
mod krate;
mod loaded;
mod messages;
mod parameters;
mod signature;

use std::path::Path;

use crate::by_name::ByName;
use crate::typed_id::toolset_type;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Attribute, Ident, Item, LitStr};

use self::attr::{ToolsetArgs, doc_comment, is_tool_attr, tool_args};
use self::emit::{entry_point, tool_value};
use self::loaded::{Loaded, Toolset, load, manifest_path};
use self::parameters::describe_parameters;
use self::signature::{ToolSignature, analyse, strip_param_docs};

/// `#[carnet::toolset("name")]` on an inline `mod` or an inherent `impl` block.
#[must_use]
pub fn toolset(attr: TokenStream, item: TokenStream) -> TokenStream {
    toolset_with_manifest(attr, item, manifest_path().as_deref())
}

/// [`toolset`] with the manifest's path given (`None`: no manifest), for tests.
#[must_use]
pub fn toolset_with_manifest(attr: TokenStream, item: TokenStream, manifest: Option<&Path>) -> TokenStream {
    let name = syn::parse2::<ToolsetArgs>(attr.clone()).ok().map(|a| a.name);
    let out = match expand_toolset(attr, item.clone(), manifest) {
        Ok(tokens) => tokens,
        Err(error) => {
            let mut out = error.to_compile_error();
            out.extend(fallback(item, name.as_ref()));
            out
        }
    };
    // The generated code names `::carnet`; a crate that renamed it gets its name.
    match krate::renamed() {
        Some(renamed) => krate::rename(out, &renamed),
        None => out,
    }
}

/// `#[carnet::tool]` outside a toolset: always an error (inside one, the toolset attribute
/// consumes it first).
#[must_use]
#[allow(clippy::needless_pass_by_value)] // the signature of every attribute macro
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    // `#[tool(__carnet_consumed)] const _: () = ();`, emitted by a toolset that used an
    // imported `#[tool]`, keeps the import used.
    if attr.to_string() == "__carnet_consumed" {
        return TokenStream::new();
    }
    let error = syn::Error::new(Span::call_site(), messages::TOOL_OUTSIDE_TOOLSET);
    let mut out = error.to_compile_error();
    out.extend(item);
    out
}

/// The item with its `#[carnet::tool]` attributes removed and a `toolset()` of the right
/// type, so code using it still type-checks while the error is reported.
fn fallback(item: TokenStream, name: Option<&LitStr>) -> TokenStream {
    let Ok(mut parsed) = syn::parse2::<Item>(item.clone()) else {
        return item;
    };
    let ty = name.map(|n| toolset_type(&n.value()));
    let in_impl = matches!(parsed, Item::Impl(_));
    let stub = ty.map(|ty| {
        let receiver = in_impl.then(|| quote!(self));
        quote! {
            #[doc(hidden)]
            #[must_use]
            #[allow(dead_code, clippy::must_use_candidate, clippy::unused_self)]
            pub fn toolset(#receiver) -> #ty {
                ::core::unreachable!("the toolset did not compile")
            }
        }
    });
    match &mut parsed {
        Item::Mod(module) => {
            if let Some((_, items)) = &mut module.content {
                strip_tool_attrs(items);
                if let Some(stub) = stub {
                    items.push(Item::Verbatim(stub));
                }
            }
            quote!(#parsed)
        }
        Item::Impl(block) => {
            for item in &mut block.items {
                if let syn::ImplItem::Fn(f) = item {
                    strip_tool_attr(&mut f.attrs, &mut f.sig);
                }
            }
            let self_ty = &block.self_ty;
            let stub = stub.map(|stub| quote!(impl #self_ty { #stub }));
            quote!(#parsed #stub)
        }
        _ => item,
    }
}

/// Removes a function's `#[carnet::tool]` and, if it had one, its parameters' doc comments.
fn strip_tool_attr(attrs: &mut Vec<Attribute>, sig: &mut syn::Signature) {
    if attrs.iter().any(is_tool_attr) {
        attrs.retain(|a| !is_tool_attr(a));
        strip_param_docs(sig);
    }
}

/// Removes every `#[carnet::tool]` (and the tools' parameter docs) from `items`, nested
/// modules included, so the re-emitted item adds no error of its own.
fn strip_tool_attrs(items: &mut [Item]) {
    for item in items {
        match item {
            Item::Fn(f) => strip_tool_attr(&mut f.attrs, &mut f.sig),
            Item::Mod(m) => {
                if let Some((_, inner)) = &mut m.content {
                    strip_tool_attrs(inner);
                }
            }
            Item::Impl(block) => {
                block.attrs.retain(|a| !is_tool_attr(a));
                for f in &mut block.items {
                    if let syn::ImplItem::Fn(f) = f {
                        strip_tool_attr(&mut f.attrs, &mut f.sig);
                    }
                }
            }
            other => {
                if let Some(attrs) = item_attrs(other) {
                    attrs.retain(|a| !is_tool_attr(a));
                }
            }
        }
    }
}

/// `basic_search`, `basicSearch` and `basic-search` are the same name.
fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// A `#[carnet::tool]` function found in the toolset.
struct ToolFn {
    ident: Ident,
    rename: Option<LitStr>,
    docs: String,
    /// `None` when the signature was rejected (the error is already reported); the
    /// function still counts as the tool's implementation, so one mistake gives one error.
    signature: Option<ToolSignature>,
    /// The attribute's arguments were invalid (reported): which tool it meant is unknown.
    broken: bool,
}

fn expand_toolset(attr: TokenStream, item: TokenStream, manifest: Option<&Path>) -> syn::Result<TokenStream> {
    let args: ToolsetArgs = syn::parse2(attr)?;
    let mut item: Item = syn::parse2(item)?;
    let loaded = load(args.name.span(), manifest)?;
    let toolset = find_toolset(&loaded, &args.name)?;
    let mut found = collect_tools(&mut item)?;
    let bindings = bind_tools(&mut found, toolset, &loaded, &args.name);
    describe_parameters(&mut found, &bindings, &loaded, &toolset.name);
    if let Some(error) = std::mem::take(&mut found.errors).into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        return Err(error);
    }
    Ok(toolset_constructor(item, &found, &bindings, toolset, &loaded))
}

/// The toolset the attribute names, or an error listing the manifest's.
fn find_toolset<'m>(manifest: &'m Loaded, name: &LitStr) -> syn::Result<&'m Toolset> {
    let toolset_name = name.value();
    if manifest.toolset(&toolset_name).is_some_and(|t| t.remote) {
        return Err(syn::Error::new(name.span(), messages::remote_toolset(&toolset_name)));
    }
    manifest.toolset(&toolset_name).ok_or_else(|| {
        let names: Vec<&str> = manifest.toolsets.iter().map(|t| &*t.name).collect();
        let suggestion = crate::diagnostic::did_you_mean(&toolset_name, names.iter().copied());
        syn::Error::new(
            name.span(),
            messages::unknown_toolset(&toolset_name, suggestion, &names),
        )
    })
}

/// The `#[carnet::tool]` functions of a toolset item, and the problems met finding them.
#[derive(Default)]
struct FoundTools {
    in_impl: bool,
    tools: Vec<ToolFn>,
    errors: Vec<syn::Error>,
    /// Functions that could not be bound: the declared tools they were probably meant for
    /// are not reported missing (one mistake, one error).
    stray: Vec<String>,
    /// `#[tool]` was used through an import, which must be kept used.
    imported_attr: bool,
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
fn collect_tools(item: &mut Item) -> syn::Result<FoundTools> {
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

/// Binds each function to the declared tool it implements (exact name, else the one
/// declared name equal after [`normalise`]), as `(index in found.tools, tool name)`;
/// reports unknown, ambiguous and doubly implemented tools, and declared tools without a
/// function, into `found.errors`.
fn bind_tools<'t>(
    found: &mut FoundTools,
    toolset: &'t Toolset,
    loaded: &Loaded,
    toolset_lit: &LitStr,
) -> Vec<(usize, &'t str)> {
    let toolset_name = toolset_lit.value();
    let FoundTools {
        tools, errors, stray, ..
    } = found;
    let declared: Vec<&str> = toolset.tools.iter().map(|t| &*t.name).collect();
    let mut bound: ByName<'_, (usize, Span)> = ByName::new();
    let mut bindings: Vec<(usize, &str)> = Vec::new();
    let mut unknown_target = false;
    for (i, tool) in tools.iter().enumerate() {
        if tool.broken {
            unknown_target = true;
            continue;
        }
        let (target, span) = match &tool.rename {
            Some(name) => {
                let value = name.value();
                match declared.iter().copied().find(|d| *d == value) {
                    Some(d) => (d, name.span()),
                    None => {
                        errors.push(not_declared(&toolset_name, &value, &declared, name.span()));
                        stray.push(value);
                        stray.push(tool.ident.to_string());
                        continue;
                    }
                }
            }
            None => {
                let fn_name = tool.ident.to_string();
                let exact = declared.iter().copied().find(|d| *d == fn_name);
                let normalised: Vec<&str> = declared
                    .iter()
                    .copied()
                    .filter(|d| normalise(d) == normalise(&fn_name))
                    .collect();
                match (exact, normalised.as_slice()) {
                    (Some(d), _) | (None, &[d]) => (d, tool.ident.span()),
                    (None, []) => {
                        errors.push(not_declared(&toolset_name, &fn_name, &declared, tool.ident.span()));
                        stray.push(fn_name);
                        continue;
                    }
                    (None, many) => {
                        errors.push(syn::Error::new(
                            tool.ident.span(),
                            messages::ambiguous(&fn_name, &toolset_name, many),
                        ));
                        stray.extend(many.iter().map(|d| (*d).to_owned()));
                        continue;
                    }
                }
            }
        };
        if let Some((first, _)) = bound.get(target) {
            errors.push(syn::Error::new(
                span,
                messages::implemented_twice(target, &tools[*first].ident, &tool.ident),
            ));
            continue;
        }
        bound.insert(target, (i, span));
        bindings.push((i, target));
    }
    let meant = |decl: &str| {
        stray.iter().any(|name| {
            name == decl
                || normalise(name) == normalise(decl)
                || crate::diagnostic::did_you_mean(name, declared.iter().copied()) == Some(decl)
        })
    };
    for decl in declared
        .iter()
        .filter(|d| !unknown_target && !bound.contains(d) && !meant(d))
    {
        let entry = &loaded.sources["toolsets"][&toolset_name];
        let site = entry
            .get("file")
            .and_then(serde_json::Value::as_str)
            .map(|file| (file, entry["tools"][*decl].as_u64().unwrap_or(1)));
        errors.push(syn::Error::new(
            toolset_lit.span(),
            messages::missing_function(&toolset_name, decl, site),
        ));
    }
    bindings
}

/// The item with every tool's entry point and `toolset()`, the constructor of the
/// toolset's implementations.
fn toolset_constructor(
    item: Item,
    found: &FoundTools,
    bindings: &[(usize, &str)],
    toolset: &Toolset,
    loaded: &Loaded,
) -> TokenStream {
    let toolset_name = &*toolset.name;
    let in_impl = found.in_impl;
    // The states the toolset's tools take, each type once, in the toolset's type.
    let mut needs: Vec<&syn::Type> = Vec::new();
    for &(i, _) in bindings {
        let signature = found.tools[i]
            .signature
            .as_ref()
            .expect("rejected signatures are reported above");
        for (_, ty) in &signature.states {
            let text = quote!(#ty).to_string();
            if !needs.iter().any(|n| quote!(#n).to_string() == text) {
                needs.push(ty);
            }
        }
    }
    let needs = needs
        .iter()
        .rev()
        .fold(quote!(()), |rest, ty| quote!((::carnet::__private::Need<#ty>, #rest)));
    let ty = crate::typed_id::toolset_type_needing(toolset_name, &needs);
    let manifest_path = loaded.path.to_string_lossy().into_owned();
    let track = quote! {
        // Rebuild when the manifest changes.
        const _: &[u8] = ::core::include_bytes!(#manifest_path);
    };
    let mut entry_points = Vec::new();
    let mut tool_values = Vec::new();
    for &(i, name) in bindings {
        let tool = &found.tools[i];
        let signature = tool.signature.as_ref().expect("rejected signatures are reported above");
        let declared = toolset.tool(name).expect("bound to a declared tool");
        let call_ident = format_ident!("__carnet_call_{}", tool.ident);
        entry_points.push(entry_point(&tool.ident, signature, &call_ident, in_impl));
        tool_values.push(tool_value(
            tool,
            signature,
            &declared.name,
            declared.described,
            &call_ident,
            in_impl,
        ));
    }
    let marker = found.imported_attr.then(|| {
        quote!(
            #[tool(__carnet_consumed)]
            const _: () = ();
        )
    });
    let doc = format!(" The implementations of toolset `{toolset_name}`, for the generated `Toolsets` struct.");
    match item {
        Item::Mod(mut module) => {
            let (_, items) = module.content.as_mut().expect("checked by collect_tools");
            let generated = quote! {
                #track
                #marker
                #(#entry_points)*
                #[doc = #doc]
                #[must_use]
                pub fn toolset() -> #ty {
                    ::carnet::__private::bound(#toolset_name, ::std::vec::Vec::from([#(#tool_values),*]))
                }
            };
            items.push(Item::Verbatim(generated));
            quote!(#module)
        }
        Item::Impl(block) => {
            let self_ty = &block.self_ty;
            quote! {
                #block
                #track
                #marker
                impl #self_ty {
                    #(#entry_points)*
                    #[doc = #doc]
                    #[must_use]
                    pub fn toolset(self) -> #ty
                    where
                        Self: ::core::marker::Send + ::core::marker::Sync + 'static,
                    {
                        let __carnet_this = ::std::sync::Arc::new(self);
                        ::carnet::__private::bound(#toolset_name, ::std::vec::Vec::from([#(#tool_values),*]))
                    }
                }
            }
        }
        _ => unreachable!("only modules and impl blocks get here"),
    }
}

/// The attributes of items that are not functions or modules (for misplaced `#[carnet::tool]`).
fn item_attrs(item: &mut Item) -> Option<&mut Vec<Attribute>> {
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

fn not_declared(toolset: &str, name: &str, declared: &[&str], span: Span) -> syn::Error {
    let suggestion = crate::diagnostic::did_you_mean(name, declared.iter().copied());
    syn::Error::new(span, messages::not_declared(toolset, name, declared, suggestion))
}
