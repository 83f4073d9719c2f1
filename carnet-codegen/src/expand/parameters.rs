//! A tool's `parameters:` block (TOOLSET.md) against its function.

use super::found::FoundTools;
use super::loaded::Loaded;
use super::messages;
use super::signature::Input;

/// Applies each bound tool's `parameters:` block (TOOLSET.md): the descriptions of its
/// named parameters, checked against the function both ways. A single parameter the block
/// names is a named field; a block beside a whole-input parameter is an error.
pub(super) fn describe_parameters(found: &mut FoundTools, bindings: &[(usize, &str)], loaded: &Loaded, toolset: &str) {
    let entry = &loaded.sources["toolsets"][toolset];
    let Some(blocks) = entry.get("parameters").and_then(serde_json::Value::as_object) else {
        return;
    };
    let file = entry.get("file").and_then(serde_json::Value::as_str);
    let site = |line: &serde_json::Value| file.map(|f| (f, line.as_u64().unwrap_or(1)));
    let tool_line = |name: &str| &entry["tools"][name];
    for &(i, name) in bindings {
        let Some(block) = blocks.get(name).and_then(serde_json::Value::as_object) else {
            continue;
        };
        let tool = &mut found.tools[i];
        let Some(signature) = tool.signature.as_mut() else {
            continue;
        };
        if let Input::Single(param) = &signature.input
            && block.contains_key(&param.name)
        {
            let Input::Single(param) = std::mem::replace(&mut signature.input, Input::Fields(Vec::new())) else {
                unreachable!("matched above")
            };
            signature.input = Input::Fields(vec![*param]);
        }
        match &mut signature.input {
            Input::Single(param) => found.errors.push(syn::Error::new(
                param.span,
                messages::parameters_of_whole_input(name, &param.name, site(tool_line(name))),
            )),
            Input::Fields(params) => {
                // A misspelt name is one error, not also its parameter's "not described".
                let mut meant = Vec::new();
                for (described, at) in block {
                    if !params.iter().any(|p| &p.name == described) {
                        let names = params.iter().map(|p| p.name.as_str());
                        let suggestion = crate::diagnostic::did_you_mean(described, names);
                        meant.extend(suggestion.map(str::to_owned));
                        found.errors.push(syn::Error::new(
                            tool.ident.span(),
                            messages::described_parameter_missing(
                                name,
                                described,
                                &tool.ident,
                                site(&at["line"]),
                                suggestion,
                            ),
                        ));
                    }
                }
                for param in params.iter_mut() {
                    match block.get(&param.name) {
                        Some(at) if !param.docs.is_empty() => found.errors.push(syn::Error::new(
                            param.span,
                            messages::parameter_described_twice(name, &param.name, site(&at["line"])),
                        )),
                        Some(at) => param.docs = at["description"].as_str().unwrap_or_default().to_owned(),
                        None if param.docs.is_empty() && !meant.contains(&param.name) => {
                            found.errors.push(syn::Error::new(
                                param.span,
                                messages::parameter_not_described(name, &param.name, site(tool_line(name))),
                            ));
                        }
                        None => {}
                    }
                }
            }
        }
    }
}
