//! `carnet.config.json`: the optional settings file of a carnet directory.
//!
//! Every key takes effect (unlike in TS Carnet, where most are parsed and ignored):
//!
//! | key | effect |
//! | --- | --- |
//! | `app.globalSkills` | skills every agent may load; checked to exist |
//! | `app.globalInitialSkills` | skills every agent starts with; checked to exist |
//! | `variables` | default variables, written into the manifest |
//! | `envPrefix` | environment prefixes allowed for variable injection, written into the manifest |
//! | `include`, `exclude` | glob patterns (relative to the directory) filtering discovery |
//! | `output` | where `carnet build` writes `carnet.manifest.json` by default, relative to the folder holding the carnet directory (default `./carnet`: the directory itself) |
//! | `allow` | warnings not to report, by code (`W0003`) or name (`skill-name-style`); a carnet extension |
//! | `limits` | raises (or lowers) the [limits](crate::Limits) on what a check reads: `maxFileSize`, `maxTotalSize`, `maxFiles`, `maxYamlDepth`, `maxYamlAliasExpansion` |
//! | `schema`, `$schema` | informational |
//!
//! An unknown key is a warning (`W0011`), not an error, so a config written for a newer
//! carnet or for TS Carnet still builds, but a typo (`exlude`) does not pass silently. An
//! empty `envPrefix` (`[""]`) is a warning too (`W0013`): it lets every environment
//! variable, secrets included, into the prompts.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::diagnostic::{Builder, Code, Diagnostics};
use crate::messages;
use crate::model::Spanned;
use crate::source::{FileId, Sources, Span};

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawSettings {
    #[serde(default, rename = "$schema")]
    #[allow(dead_code)]
    dollar_schema: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    schema: Option<String>,
    #[serde(default)]
    app: Option<RawApp>,
    #[serde(default)]
    output: Option<String>,
    #[serde(default)]
    variables: Option<BTreeMap<String, String>>,
    #[serde(default)]
    env_prefix: Option<Vec<String>>,
    #[serde(default)]
    include: Option<Vec<String>>,
    #[serde(default)]
    exclude: Option<Vec<String>>,
    #[serde(default)]
    allow: Option<Vec<String>>,
    #[serde(default)]
    limits: Option<crate::limits::LimitsSet>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawApp {
    #[serde(default)]
    global_initial_skills: Vec<String>,
    #[serde(default)]
    global_skills: Vec<String>,
}

/// The settings of a carnet directory.
#[derive(Debug, Default, Clone)]
pub(crate) struct Settings {
    pub(crate) global_initial_skills: Vec<Spanned<String>>,
    pub(crate) global_skills: Vec<Spanned<String>>,
    pub(crate) output: Option<String>,
    pub(crate) variables: BTreeMap<String, String>,
    pub(crate) env_prefix: Option<Vec<String>>,
    pub(crate) include: Vec<String>,
    pub(crate) exclude: Vec<String>,
    /// Warnings not to report, by code (`W0003`) or name (`skill-name-style`).
    pub(crate) allow: Vec<Spanned<String>>,
    /// `limits`, when the file sets it: each key it sets over the same limit of
    /// [`crate::Config::limits`].
    pub(crate) limits: Option<crate::limits::LimitsSet>,
    /// Where each `include` and `exclude` pattern is written, for W0012.
    pub(crate) pattern_spans: Vec<(&'static str, Spanned<String>)>,
}

/// Parses `carnet.config.json`. A problem is reported and the defaults are used.
pub(crate) fn parse(file: FileId, sources: &Sources, diags: &mut Diagnostics) -> Settings {
    let text = &sources.get(file).text;
    let raw: RawSettings = if text.trim().is_empty() {
        RawSettings::default()
    } else {
        match serde_json::from_str(text) {
            Ok(raw) => raw,
            Err(e) => {
                let offset = offset_of(text, e.line(), e.column());
                diags.push(
                    Builder::new(Code::InvalidConfig, messages::invalid_config(&strip_position(&e)))
                        .at(Span::new(file, offset, (offset + 1).min(text.len())))
                        .note(messages::DEFAULTS_USED),
                );
                return Settings::default();
            }
        }
    };
    check_unknown_keys(file, sources, diags);
    let app = raw.app.unwrap_or_default();
    let spanned = |names: Vec<String>, key: &str| {
        let key_at = sources.find(file, &format!("\"{key}\""), 0).unwrap_or(0);
        let mut from = key_at;
        names
            .into_iter()
            .map(|name| {
                let needle = serde_json::to_string(&name).unwrap_or_default();
                let start = sources.find(file, &needle, from).unwrap_or(key_at);
                from = start + needle.len().min(1);
                Spanned {
                    span: Span::new(file, start, start + needle.len()),
                    value: name,
                }
            })
            .collect::<Vec<_>>()
    };
    let settings = Settings {
        global_initial_skills: spanned(app.global_initial_skills, "globalInitialSkills"),
        global_skills: spanned(app.global_skills, "globalSkills"),
        output: raw.output,
        variables: raw.variables.unwrap_or_default(),
        env_prefix: raw.env_prefix,
        include: raw.include.unwrap_or_default(),
        exclude: raw.exclude.unwrap_or_default(),
        allow: spanned(raw.allow.unwrap_or_default(), "allow"),
        limits: raw.limits,
        pattern_spans: Vec::new(),
    };
    let mut settings = settings;
    settings.pattern_spans = spanned(settings.include.clone(), "include")
        .into_iter()
        .map(|s| ("include", s))
        .chain(
            spanned(settings.exclude.clone(), "exclude")
                .into_iter()
                .map(|s| ("exclude", s)),
        )
        .collect();
    if let Some(prefixes) = &settings.env_prefix
        && prefixes.iter().any(String::is_empty)
    {
        let key_at = sources.find(file, "\"envPrefix\"", 0).unwrap_or(0);
        let start = sources.find(file, "\"\"", key_at).unwrap_or(key_at);
        diags.push(
            Builder::new(Code::WholeEnvironment, messages::EMPTY_ENV_PREFIX)
                .at(Span::new(file, start, start + 2))
                .label(messages::MATCHES_EVERY_VARIABLE)
                .help(messages::NAME_A_PREFIX),
        );
    }
    for allowed in &settings.allow {
        match Code::ALL
            .iter()
            .find(|c| c.as_str() == allowed.value || c.name() == allowed.value)
        {
            Some(code) if code.severity() == crate::diagnostic::Severity::Error => diags.push(
                Builder::new(Code::InvalidConfig, messages::error_cannot_be_allowed(&allowed.value))
                    .at(allowed.span)
                    .label(messages::ONLY_WARNINGS_SILENCED),
            ),
            Some(_) => {}
            None => {
                let names = Code::ALL
                    .iter()
                    .filter(|c| c.severity() == crate::diagnostic::Severity::Warning)
                    .map(|c| c.name());
                diags.push(
                    Builder::new(Code::InvalidConfig, messages::unknown_warning(&allowed.value))
                        .at(allowed.span)
                        .help_opt(crate::diagnostic::did_you_mean(&allowed.value, names).map(messages::did_you_mean)),
                );
            }
        }
    }
    for pattern in settings.include.iter().chain(&settings.exclude) {
        if let Some(problem) = pattern_problem(pattern) {
            let needle = serde_json::to_string(pattern).unwrap_or_default();
            let start = sources.find(file, &needle, 0).unwrap_or(0);
            diags.push(
                Builder::new(Code::InvalidGlob, messages::invalid_pattern(pattern))
                    .at(Span::new(file, start, start + needle.len()))
                    .label(problem),
            );
        }
    }
    settings
}

/// Warns about every key of the file, or of its `app`, that carnet does not know.
fn check_unknown_keys(file: FileId, sources: &Sources, diags: &mut Diagnostics) {
    let text = &sources.get(file).text;
    let Ok(serde_json::Value::Object(top)) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    let mut report = |key: &str, known: &[&str], from: usize| {
        let needle = serde_json::to_string(key).unwrap_or_default();
        let start = sources.find(file, &needle, from).unwrap_or(0);
        diags.push(
            Builder::new(Code::UnknownConfigKey, messages::unknown_config_key(key))
                .at(Span::new(file, start, start + needle.len()))
                .label(messages::IGNORED)
                .help_opt(crate::diagnostic::did_you_mean(key, known.iter().copied()).map(messages::did_you_mean))
                .note(messages::known_keys(known)),
        );
    };
    // The keys carnet reads are those of the tables in crate::fields.
    let keys: Vec<&str> = crate::fields::CONFIG.keys().collect();
    for key in top.keys().filter(|k| !keys.contains(&k.as_str())) {
        report(key, &keys, 0);
    }
    if let Some(serde_json::Value::Object(app)) = top.get("app") {
        let app_at = sources.find(file, "\"app\"", 0).unwrap_or(0);
        let app_keys: Vec<&str> = crate::fields::CONFIG_APP.keys().collect();
        for key in app.keys().filter(|k| !app_keys.contains(&k.as_str())) {
            report(key, &app_keys, app_at);
        }
    }
}

/// What is wrong with an `include` or `exclude` pattern, if anything.
pub(crate) fn pattern_problem(pattern: &str) -> Option<&'static str> {
    if pattern.is_empty() {
        Some(messages::EMPTY_PATTERN)
    } else if pattern.starts_with('/') || pattern.contains('\\') || pattern.split('/').any(|s| s == "..") {
        Some(messages::PATTERN_FORM)
    } else {
        None
    }
}

fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (line_start + column.saturating_sub(1)).min(text.len())
}

fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}
