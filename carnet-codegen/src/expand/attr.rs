//! The attributes' arguments: `#[carnet::toolset("name")]` and `#[carnet::tool(name = "...")]`.

use syn::parse::{Parse, ParseStream};

use super::messages;
use syn::{Attribute, Ident, LitStr, Token};

/// `#[carnet::toolset("search-tools")]`.
pub(crate) struct ToolsetArgs {
    pub(crate) name: LitStr,
}

impl Parse for ToolsetArgs {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(syn::Error::new(
                proc_macro2::Span::call_site(),
                messages::TOOLSET_WITHOUT_NAME,
            ));
        }
        let lookahead = input.lookahead1();
        if !lookahead.peek(LitStr) {
            if input.peek(Ident) && input.peek2(Token![=]) {
                let key: Ident = input.parse()?;
                input.parse::<Token![=]>()?;
                let value = input
                    .parse::<LitStr>()
                    .ok()
                    .filter(|_| key == "name")
                    .map(|v| v.value());
                return Err(syn::Error::new(
                    key.span(),
                    messages::unknown_toolset_key(&key, value.as_deref()),
                ));
            }
            return Err(lookahead.error());
        }
        let name: LitStr = input.parse()?;
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        }
        if !input.is_empty() {
            if input.peek(Ident) {
                let key: Ident = input.parse()?;
                return Err(syn::Error::new(key.span(), messages::unknown_toolset_key(&key, None)));
            }
            return Err(input.error("unexpected tokens after the toolset's name"));
        }
        Ok(ToolsetArgs { name })
    }
}

mod kw {
    syn::custom_keyword!(name);
}

/// `#[carnet::tool]` or `#[carnet::tool(name = "basicSearch")]`.
#[derive(Default)]
pub(crate) struct ToolArgs {
    pub(crate) name: Option<LitStr>,
}

impl Parse for ToolArgs {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut args = ToolArgs::default();
        while !input.is_empty() {
            let lookahead = input.lookahead1();
            if lookahead.peek(kw::name) {
                let key: kw::name = input.parse()?;
                input.parse::<Token![=]>()?;
                let value: LitStr = input.parse()?;
                if args.name.is_some() {
                    return Err(syn::Error::new(key.span, messages::DUPLICATE_NAME_KEY));
                }
                args.name = Some(value);
            } else if input.peek(Ident) {
                let key: Ident = input.parse()?;
                let close = crate::diagnostic::did_you_mean(&key.to_string(), ["name"]).is_some();
                return Err(syn::Error::new(key.span(), messages::unknown_tool_key(&key, close)));
            } else {
                return Err(lookahead.error());
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(args)
    }
}

/// Whether `attr` is `#[carnet::tool]` (or `#[tool]` with the attribute imported).
pub(crate) fn is_tool_attr(attr: &Attribute) -> bool {
    let segments: Vec<String> = attr.path().segments.iter().map(|s| s.ident.to_string()).collect();
    match segments.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["tool"] | ["carnet", "tool"] => true,
        [krate, "tool"] => super::krate::renamed().is_some_and(|renamed| renamed == *krate),
        _ => false,
    }
}

/// Parses the arguments of a `#[carnet::tool]` attribute.
pub(crate) fn tool_args(attr: &Attribute) -> syn::Result<ToolArgs> {
    match &attr.meta {
        syn::Meta::Path(_) => Ok(ToolArgs::default()),
        syn::Meta::List(list) => list.parse_args(),
        syn::Meta::NameValue(nv) => Err(syn::Error::new_spanned(&nv.value, messages::TOOL_ATTRIBUTE_FORM)),
    }
}

/// The doc comment of an item, lines joined, trimmed.
pub(crate) fn doc_comment(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').unwrap_or(&line).trim_end().to_owned())
        .collect();
    lines.join("\n").trim().to_owned()
}
