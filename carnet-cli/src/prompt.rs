//! `carnet prompt`: the system prompt an agent's model gets, after loading some skills.

use carnet_runtime::{Carnet, CatalogFormat, LoadError, Manifest, PromptOptions, Session, Variables};
use serde_json::json;

use crate::{Failure, unknown};

/// A session of `agent` with `load` loaded, on an engine without tool implementations.
pub(crate) fn session(
    manifest: &Manifest,
    agent: &str,
    load: &[String],
    configure: impl FnOnce(carnet_runtime::CarnetBuilder) -> carnet_runtime::CarnetBuilder,
) -> Result<Session, Failure> {
    let carnet = configure(Carnet::builder(manifest).allow_unimplemented())
        .build()
        .map_err(|e| Failure::content(format!("error: {e}")))?;
    session_on(&carnet, agent, load)
}

/// A session of `agent` with `load` loaded, on `carnet`.
pub(crate) fn session_on(carnet: &Carnet, agent: &str, load: &[String]) -> Result<Session, Failure> {
    let mut session = carnet
        .session(agent)
        .map_err(|_| unknown("agent", agent, carnet.manifest().agents.iter().map(|a| &a.name)))?;
    for skill in load {
        session.load_skill(skill).map_err(|error| {
            // The error says the did-you-mean itself; without one, what the agent can load.
            let hint = match &error {
                LoadError::UnknownSkill {
                    similar: None,
                    available,
                    ..
                } => format!("\n  = note: agent `{agent}` can load: {}", available.join(", ")),
                _ => String::new(),
            };
            Failure::usage(format!("error: cannot load `{skill}`: {error}{hint}"))
        })?;
    }
    Ok(session)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Catalog {
    /// A markdown list.
    Markdown,
    /// The Agent Skills `<available_skills>` block.
    Xml,
}

pub(crate) fn run(
    manifest: &Manifest,
    agent: &str,
    load: &[String],
    vars: &[(String, String)],
    catalog: Catalog,
    preset: crate::tools::PresetArg,
    as_json: bool,
) -> Result<(), Failure> {
    let options = PromptOptions {
        catalog_format: match catalog {
            Catalog::Markdown => CatalogFormat::Markdown,
            Catalog::Xml => CatalogFormat::Xml,
        },
        ..PromptOptions::default()
    };
    let session = session(manifest, agent, load, |b| {
        b.prompt_options(options).preset(preset.into())
    })?;
    let prompt = if vars.is_empty() {
        session.system_prompt().to_owned()
    } else {
        let mut call = Variables::new();
        for (k, v) in vars {
            call.set(k.clone(), v.clone())
                .map_err(|e| Failure::usage(format!("error: {e}")))?;
        }
        session.system_prompt_with(&call)
    };
    if as_json {
        let value = json!({
            "agent": agent,
            "loaded": session.loaded_skills().collect::<Vec<_>>(),
            "prompt": prompt,
        });
        outln!(
            "{}",
            serde_json::to_string_pretty(&value).expect("JSON values serialise")
        );
    } else {
        outln!("{prompt}");
    }
    Ok(())
}
