//! A session's load history: each load and unload of a skill, a toolset or a tool, when it
//! happened and which tool call (or the program) made it. Bounded: the newest
//! [`HISTORY_CAP`] events are kept, and the older ones are counted, not kept.

use std::collections::VecDeque;
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::reach::Loaded;
use crate::engine::Inner;

/// The most events a session's history keeps. A load or unload past it drops the oldest
/// event, which [`Session::history_dropped`](super::Session::history_dropped) (and
/// [`SessionState::history_dropped`](super::SessionState::history_dropped)) counts: nothing
/// leaves the history unaccounted for. 32 events of usual names and call ids are about 4 KB
/// of JSON, well inside a sealed MCP session handle.
pub const HISTORY_CAP: usize = 32;

/// The longest call id kept in an event, in bytes: a longer one (a client chooses JSON-RPC
/// ids) is cut at a character boundary, as telemetry cuts it on spans.
pub const CALL_ID_LIMIT: usize = 128;

/// Whether an event loaded or unloaded something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LoadAction {
    /// Loaded: a skill, a toolset (`loadToolset`) or a tool (`loadTool`, or found by
    /// `searchTools` when search loads what it finds).
    Load,
    /// Unloaded ([`Session::unload_skill`](super::Session::unload_skill),
    /// [`Session::unload_toolset`](super::Session::unload_toolset),
    /// [`Session::reset`](super::Session::reset)).
    Unload,
}

/// What an event loaded or unloaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LoadKind {
    /// A skill (with the toolsets it brings).
    Skill,
    /// A toolset loaded directly (`loadToolset`).
    Toolset,
    /// A tool loaded directly (`loadTool`).
    Tool,
}

impl LoadKind {
    fn word(self) -> &'static str {
        match self {
            LoadKind::Skill => "skill",
            LoadKind::Toolset => "toolset",
            LoadKind::Tool => "tool",
        }
    }
}

/// The tool call that made a load: the tool called (`loadSkill`, `task.<skill>`,
/// `loadToolset`, `loadTool`, `searchTools`) and the call's id, when the caller gave one
/// (a model's call id through [`Session::call_with_id`](super::Session::call_with_id) and
/// [`Session::run_calls`](super::Session::run_calls), the JSON-RPC id over MCP).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadCall {
    /// The tool called, by the name it was called with.
    pub tool: String,
    /// The call's id, cut at [`CALL_ID_LIMIT`] bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// One load or unload in a session's history.
///
/// In JSON (in [`SessionState`](super::SessionState)): `{"action": "load", "kind": "skill",
/// "name": "dataAnalysis", "at": 1795928000123, "call": {"tool": "loadSkill", "id":
/// "call_1"}}`, `at` in milliseconds since the Unix epoch (UTC), `call` absent when the
/// program made the change through the session's methods.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadEvent {
    /// Loaded or unloaded.
    pub action: LoadAction,
    /// A skill, a toolset or a tool.
    pub kind: LoadKind,
    /// Its name.
    pub name: String,
    /// When, by the wall clock, to the millisecond.
    #[serde(with = "unix_millis")]
    pub at: SystemTime,
    /// The tool call that made it; `None` when the program did, through the session's
    /// methods ([`Session::load_skill`](super::Session::load_skill),
    /// [`Session::unload_skill`](super::Session::unload_skill), [`Session::reset`](super::Session::reset), ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<LoadCall>,
}

impl fmt::Display for LoadEvent {
    /// ``loaded skill `dataAnalysis` at 2026-11-29T05:10:00.123Z by `loadSkill` call `call_1` ``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let action = match self.action {
            LoadAction::Load => "loaded",
            LoadAction::Unload => "unloaded",
        };
        write!(
            f,
            "{action} {} `{}` at {}",
            self.kind.word(),
            self.name,
            rfc3339(self.at)
        )?;
        match &self.call {
            None => f.write_str(" by the program"),
            Some(LoadCall { tool, id: Some(id) }) => write!(f, " by `{tool}` call `{id}`"),
            Some(LoadCall { tool, id: None }) => write!(f, " by a `{tool}` call"),
        }
    }
}

/// A session's events, oldest first, and how many were dropped at the cap.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct History {
    events: VecDeque<LoadEvent>,
    dropped: u64,
}

impl History {
    /// A history as a saved state gives it: the newest [`HISTORY_CAP`] events kept, the
    /// others added to `dropped`, call ids cut.
    pub(crate) fn restored(events: &[LoadEvent], dropped: u64) -> Self {
        let mut history = History {
            events: VecDeque::with_capacity(events.len().min(HISTORY_CAP)),
            dropped,
        };
        for event in events {
            let mut event = event.clone();
            if let Some(call) = &mut event.call {
                call.id = call.id.take().map(|id| cut(&id).to_owned());
            }
            history.push(event);
        }
        history
    }

    pub(crate) fn events(&self) -> impl ExactSizeIterator<Item = &LoadEvent> + DoubleEndedIterator {
        self.events.iter()
    }

    pub(crate) fn dropped(&self) -> u64 {
        self.dropped
    }

    fn push(&mut self, event: LoadEvent) {
        if self.events.len() == HISTORY_CAP {
            self.events.pop_front();
            self.dropped = self.dropped.saturating_add(1);
        }
        self.events.push_back(event);
    }

    /// Records what changed from `before` to `after`, now: unloads first (skills, toolsets,
    /// tools), then loads in the order they were made, all by `call`.
    pub(crate) fn record(&mut self, inner: &Inner, before: &Loaded, after: &Loaded, call: Option<&LoadCall>) {
        let at = now();
        let mut event = |action, kind, name: &str| {
            self.push(LoadEvent {
                action,
                kind,
                name: name.to_owned(),
                at,
                call: call.cloned(),
            });
        };
        for s in gone(&before.skills, &after.skills) {
            event(LoadAction::Unload, LoadKind::Skill, &inner.skill(s).name);
        }
        for t in gone(&before.toolsets, &after.toolsets) {
            event(LoadAction::Unload, LoadKind::Toolset, &inner.toolset(t).name);
        }
        for id in gone(&before.tools, &after.tools) {
            event(LoadAction::Unload, LoadKind::Tool, &inner.tool(id).spec.name);
        }
        for s in gone(&after.skills, &before.skills) {
            event(LoadAction::Load, LoadKind::Skill, &inner.skill(s).name);
        }
        for t in gone(&after.toolsets, &before.toolsets) {
            event(LoadAction::Load, LoadKind::Toolset, &inner.toolset(t).name);
        }
        for id in gone(&after.tools, &before.tools) {
            event(LoadAction::Load, LoadKind::Tool, &inner.tool(id).spec.name);
        }
    }

    /// The newest event about `kind` `name`.
    pub(crate) fn last(&self, kind: LoadKind, name: &str) -> Option<&LoadEvent> {
        self.events.iter().rev().find(|e| e.kind == kind && e.name == name)
    }
}

impl LoadCall {
    /// The call of `tool` with id `id` (cut at [`CALL_ID_LIMIT`]).
    pub(crate) fn new(tool: &str, id: Option<&str>) -> Self {
        LoadCall {
            tool: tool.to_owned(),
            id: id.map(|id| cut(id).to_owned()),
        }
    }
}

/// The items of `old` that `new` lacks, in `old`'s order.
fn gone<T: Copy + PartialEq>(old: &[T], new: &[T]) -> Vec<T> {
    old.iter().copied().filter(|x| !new.contains(x)).collect()
}

fn cut(id: &str) -> &str {
    if id.len() <= CALL_ID_LIMIT {
        return id;
    }
    let mut end = CALL_ID_LIMIT;
    while !id.is_char_boundary(end) {
        end -= 1;
    }
    &id[..end]
}

/// The wall clock, to the millisecond (what the JSON keeps, so a state equals itself after
/// a round trip).
fn now() -> SystemTime {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    UNIX_EPOCH + Duration::from_millis(u64::try_from(since.as_millis()).unwrap_or(u64::MAX))
}

/// `at` as RFC 3339 in UTC, to the millisecond: `2026-11-29T05:10:00.123Z`.
pub(crate) fn rfc3339(at: SystemTime) -> String {
    let millis = at.duration_since(UNIX_EPOCH).unwrap_or_default().as_millis();
    let (days, rest) = (millis / 86_400_000, millis % 86_400_000);
    let (hour, minute, second, milli) = (rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's `civil_from_days`).
    let z = days + 719_468;
    let (era, doe) = (z / 146_097, z % 146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u128::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{milli:03}Z")
}

/// `SystemTime` as milliseconds since the Unix epoch.
mod unix_millis {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::{Duration, SystemTime, UNIX_EPOCH};

    pub(super) fn serialize<S: Serializer>(at: &SystemTime, serializer: S) -> Result<S::Ok, S::Error> {
        let millis = at.duration_since(UNIX_EPOCH).unwrap_or_default().as_millis();
        serializer.serialize_u64(u64::try_from(millis).unwrap_or(u64::MAX))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SystemTime, D::Error> {
        let millis = u64::deserialize(deserializer)?;
        UNIX_EPOCH
            .checked_add(Duration::from_millis(millis))
            .ok_or_else(|| serde::de::Error::custom(format!("`at` {millis} is past what this system's clock can hold")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_as_rfc_3339_in_utc() {
        let at = |millis| UNIX_EPOCH + Duration::from_millis(millis);
        assert_eq!(rfc3339(at(0)), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(at(951_782_400_000)), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339(at(1_795_928_406_123)), "2026-11-29T05:00:06.123Z");
        assert_eq!(rfc3339(at(4_107_542_399_999)), "2100-02-28T23:59:59.999Z");
    }

    #[test]
    fn call_ids_are_cut_at_a_character_boundary() {
        let long = "é".repeat(CALL_ID_LIMIT);
        let call = LoadCall::new("loadSkill", Some(&long));
        let id = call.id.unwrap();
        assert!(id.len() <= CALL_ID_LIMIT && long.starts_with(&id), "{id}");
        assert_eq!(LoadCall::new("loadSkill", Some("call_1")).id.as_deref(), Some("call_1"));
    }
}
