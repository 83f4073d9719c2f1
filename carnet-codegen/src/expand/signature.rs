//! What a tool function takes and returns, and the signatures that cannot be tools.

use super::attr::doc_comment;
use super::messages;
use syn::ext::IdentExt;
use syn::{Attribute, FnArg, GenericArgument, Ident, Pat, PathArguments, ReturnType, Signature, Type};

/// How the model's arguments reach the function.
pub(crate) enum Input {
    /// Named parameters: the input is an object with one field per parameter.
    Fields(Vec<Param>),
    /// One parameter, neither an `Option` nor documented: the whole input when its type's
    /// schema is an object with properties (a struct), else the input's one field. Decided
    /// from the schema when the toolset is built (`__private::is_whole`), not from the
    /// type's name.
    Single(Box<Param>),
}

pub(crate) struct Param {
    /// Where the parameter's name is, for errors about it.
    pub(crate) span: proc_macro2::Span,
    /// The input field's name: the parameter's, without `r#`.
    pub(crate) name: String,
    pub(crate) ty: Type,
    /// Its position among the function's parameters (the context excluded).
    pub(crate) position: usize,
    /// Its doc comment: the field's description in the input schema.
    pub(crate) docs: String,
}

/// What the function returns.
pub(crate) enum Output {
    /// A `Result<T, E>`: `Err` becomes a tool error.
    Result(Type),
    /// Anything `Serialize` (or nothing).
    Plain(Option<Type>),
}

/// A tool function's signature, understood.
pub(crate) struct ToolSignature {
    pub(crate) is_async: bool,
    pub(crate) input: Input,
    /// Where the `&carnet::Context` parameter goes, among all non-receiver parameters.
    pub(crate) context: Option<usize>,
    /// The `State<T>` parameters: where each goes, and its `T`.
    pub(crate) states: Vec<(usize, Type)>,
    /// The number of non-receiver parameters.
    pub(crate) arity: usize,
    pub(crate) output: Output,
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

/// `&Context`, `&carnet::Context<'_>`, ...
fn is_context(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => r.mutability.is_none() && last_segment(&r.elem).is_some_and(|s| s.ident == "Context"),
        _ => false,
    }
}

/// The `T` of a `State<T>` parameter (`carnet::State<T>`, or `State<T>` imported).
fn state_inner(ty: &Type) -> Option<&Type> {
    type_argument(ty, "State")
}

/// Whether `ty` (syntactically) is an `Option`.
pub(crate) fn is_option(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "Option" && matches!(s.arguments, PathArguments::AngleBracketed(_)))
}

/// The `T` of an `Option<T>`.
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    type_argument(ty, "Option")
}

/// The one type argument of `Name<T>` (by the path's last segment).
fn type_argument<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let segment = last_segment(ty).filter(|s| s.ident == name)?;
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(inner) if args.args.len() == 1 => Some(inner),
        _ => None,
    }
}

/// The first `impl Trait` inside a type.
fn find_impl_trait(ty: &Type) -> Option<&syn::TypeImplTrait> {
    match ty {
        Type::ImplTrait(t) => Some(t),
        Type::Reference(r) => find_impl_trait(&r.elem),
        Type::Paren(p) => find_impl_trait(&p.elem),
        Type::Group(g) => find_impl_trait(&g.elem),
        Type::Slice(s) => find_impl_trait(&s.elem),
        Type::Array(a) => find_impl_trait(&a.elem),
        Type::Tuple(t) => t.elems.iter().find_map(find_impl_trait),
        Type::Path(p) => p.path.segments.iter().find_map(|s| match &s.arguments {
            PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
                GenericArgument::Type(t) => find_impl_trait(t),
                _ => None,
            }),
            _ => None,
        }),
        _ => None,
    }
}

/// Why a reference parameter cannot be taken, and what to take instead.
fn reference_message(name: &Ident, r: &syn::TypeReference) -> String {
    if last_segment(&r.elem).is_some_and(|s| s.ident == "Context") {
        return messages::mut_context(name);
    }
    if last_segment(&r.elem).is_some_and(|s| s.ident == "str") {
        return messages::str_param(name);
    }
    let elem = &r.elem;
    let owned = quote::quote!(#elem)
        .to_string()
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace(" ,", ",");
    messages::reference_param(name, &owned)
}

/// The first `///` line (or `#[doc = "..."]`) of a parameter.
fn first_doc(attrs: &[Attribute]) -> Option<&Attribute> {
    attrs.iter().find(|a| a.path().is_ident("doc"))
}

/// Removes the doc comments of `sig`'s parameters: rustc refuses them on a function's
/// parameters, and once read they are the input's descriptions.
pub(crate) fn strip_param_docs(sig: &mut Signature) {
    for arg in &mut sig.inputs {
        if let FnArg::Typed(typed) = arg {
            typed.attrs.retain(|a| !a.path().is_ident("doc"));
        }
    }
}

/// Understands `sig`, or says why it cannot be a tool (every problem, combined).
pub(crate) fn analyse(sig: &Signature, in_impl: bool) -> syn::Result<ToolSignature> {
    let mut errors: Vec<syn::Error> = Vec::new();
    let name = &sig.ident;
    if !sig.generics.params.is_empty() {
        errors.push(syn::Error::new_spanned(&sig.generics, messages::generic(name)));
    } else if let Some(where_clause) = &sig.generics.where_clause {
        errors.push(syn::Error::new_spanned(where_clause, messages::where_clause(name)));
    }
    if let Some(constness) = &sig.constness {
        errors.push(syn::Error::new(constness.span, messages::const_fn(name)));
    }
    if let syn::Safety::Unsafe(unsafety) = &sig.safety {
        errors.push(syn::Error::new(unsafety.span, messages::unsafe_fn(name)));
    }
    if let Some(abi) = &sig.abi {
        errors.push(syn::Error::new_spanned(abi, messages::extern_abi(name)));
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(syn::Error::new_spanned(variadic, messages::variadic(name)));
    }

    let mut has_receiver = false;
    let mut context = None;
    let mut states = Vec::new();
    let mut params = Vec::new();
    let mut arity = 0;
    for arg in &sig.inputs {
        match arg {
            FnArg::Receiver(receiver) => {
                has_receiver = true;
                let by_reference = matches!(receiver.kind, syn::ReceiverKind::Reference(..));
                let mutable = matches!(receiver.kind, syn::ReceiverKind::Reference(_, _, Some(_)));
                if !by_reference {
                    errors.push(syn::Error::new_spanned(receiver, messages::self_by_value(name)));
                } else if mutable {
                    errors.push(syn::Error::new_spanned(receiver, messages::mut_self(name)));
                }
            }
            FnArg::Typed(typed) => {
                let position = arity;
                arity += 1;
                if is_context(&typed.ty) {
                    if context.is_some() {
                        errors.push(syn::Error::new_spanned(&typed.ty, messages::two_contexts(name)));
                    }
                    if let Some(doc) = first_doc(&typed.attrs) {
                        errors.push(syn::Error::new_spanned(doc, messages::documented_context(name)));
                    }
                    context = Some(position);
                    continue;
                }
                if let Some(inner) = state_inner(&typed.ty) {
                    states.push((position, inner.clone()));
                    continue;
                }
                if let Some(node) = find_impl_trait(&typed.ty) {
                    errors.push(syn::Error::new_spanned(node, messages::impl_trait_param(name)));
                    continue;
                }
                if let Type::Reference(r) = &*typed.ty {
                    errors.push(syn::Error::new_spanned(r, reference_message(name, r)));
                    continue;
                }
                let Pat::Ident(pat) = &*typed.pat else {
                    errors.push(syn::Error::new_spanned(&typed.pat, messages::pattern_param(name)));
                    continue;
                };
                if pat.by_ref.is_some() || pat.subpat.is_some() {
                    errors.push(syn::Error::new_spanned(pat, messages::ref_param(name)));
                    continue;
                }
                params.push(Param {
                    span: pat.ident.span(),
                    name: pat.ident.unraw().to_string(),
                    ty: (*typed.ty).clone(),
                    position,
                    docs: doc_comment(&typed.attrs),
                });
            }
        }
    }
    if let ReturnType::Type(_, ty) = &sig.output
        && let Some(node) = find_impl_trait(ty)
    {
        errors.push(syn::Error::new_spanned(node, messages::impl_trait_return(name)));
    }
    if in_impl && !has_receiver && errors.is_empty() {
        errors.push(syn::Error::new(sig.ident.span(), messages::missing_self(name)));
    }
    // A documented parameter is named: its comment describes the field.
    let input = if params.len() == 1 && !is_option(&params[0].ty) && params[0].docs.is_empty() {
        Input::Single(Box::new(params.remove(0)))
    } else {
        Input::Fields(params)
    };
    if let Some(first) = errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        return Err(first);
    }

    let output = match &sig.output {
        ReturnType::Default => Output::Plain(None),
        ReturnType::Type(_, ty) => {
            if last_segment(ty).is_some_and(|s| s.ident == "Result") {
                Output::Result((**ty).clone())
            } else {
                Output::Plain(Some((**ty).clone()))
            }
        }
    };
    Ok(ToolSignature {
        is_async: sig.asyncness.is_some(),
        input,
        context,
        states,
        arity,
        output,
    })
}

/// The `T` of a `Result<T, E>` (or of an alias such as `io::Result<T>`).
pub(crate) fn ok_type(ty: &Type) -> Option<Type> {
    let PathArguments::AngleBracketed(args) = &last_segment(ty)?.arguments else {
        return None;
    };
    args.args.iter().find_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty.clone()),
        _ => None,
    })
}

/// Whether `ty` is `()`.
pub(crate) fn is_unit(ty: &Type) -> bool {
    matches!(ty, Type::Tuple(tuple) if tuple.elems.is_empty())
}
