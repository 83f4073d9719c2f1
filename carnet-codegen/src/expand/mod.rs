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
mod found;
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
use syn::{Attribute, Item, LitStr};

use self::attr::{ToolsetArgs, is_tool_attr};
use self::emit::{entry_point, tool_value};
use self::found::{FoundTools, collect_tools, item_attrs};
use self::loaded::{Loaded, Toolset, load, manifest_path};
use self::parameters::describe_parameters;
use self::signature::strip_param_docs;

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
            let ty = name.map(|name| fallback_type(&name.value(), manifest));
            out.extend(fallback(item, ty));
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

/// The generics and the return type of the fallback's `toolset()`, chosen so that the code
/// using it type-checks and the attribute's error is the only one: the named toolset's type;
/// for a name the manifest does not declare, a type that any field of `Toolsets` infers to
/// its own, inline or written out.
fn fallback_type(name: &str, manifest: Option<&Path>) -> (TokenStream, TokenStream) {
    let known = load(Span::call_site(), manifest).map_or(true, |loaded| loaded.toolset(name).is_some());
    if known {
        (TokenStream::new(), toolset_type(name))
    } else {
        (
            quote!(<__CarnetName>),
            quote!(::carnet::__private::BoundToolset<__CarnetName>),
        )
    }
}

/// The item with its `#[carnet::tool]` attributes removed and a `toolset()` of type `ty`
/// (see [`fallback_type`]), so code using it still type-checks while the error is reported.
fn fallback(item: TokenStream, ty: Option<(TokenStream, TokenStream)>) -> TokenStream {
    let Ok(mut parsed) = syn::parse2::<Item>(item.clone()) else {
        return item;
    };
    let in_impl = matches!(parsed, Item::Impl(_));
    let stub = ty.map(|(generics, ty)| {
        let receiver = in_impl.then(|| quote!(self));
        quote! {
            #[doc(hidden)]
            #[must_use]
            #[allow(dead_code, clippy::must_use_candidate, clippy::unused_self)]
            pub fn toolset #generics (#receiver) -> #ty {
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
    if let Some(remote) = manifest.toolset(&toolset_name).filter(|t| t.remote) {
        return Err(syn::Error::new(
            name.span(),
            messages::remote_toolset(&toolset_name, remote.a2a),
        ));
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

fn not_declared(toolset: &str, name: &str, declared: &[&str], span: Span) -> syn::Error {
    let suggestion = crate::diagnostic::did_you_mean(name, declared.iter().copied());
    syn::Error::new(span, messages::not_declared(toolset, name, declared, suggestion))
}
