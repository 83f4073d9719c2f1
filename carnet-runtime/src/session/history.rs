//! A session's load history: each load and unload of a skill, a toolset or a tool, when it
//! happened and which tool call (or the program) made it. Bounded: the newest
//! [`HISTORY_CAP`] events are kept, and the older ones are counted, not kept.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::reach::Loaded;
use crate::engine::Inner;
use crate::index::{SkillIx, ToolIx, ToolsetIx};

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

/// A session's events, oldest first, and how many were dropped at the cap. Kept small: an
/// event is 24 bytes (what changed by its index, the time in milliseconds, the call shared by
/// the events it made); names are looked up when the history is read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct History {
    entries: VecDeque<Entry>,
    dropped: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// Milliseconds since the Unix epoch.
    at: u64,
    /// The skill's, toolset's or tool's index in the engine's tables.
    index: u32,
    action: LoadAction,
    kind: LoadKind,
    call: Option<Arc<LoadCall>>,
}

impl History {
    /// A history as a saved state gives it: the newest [`HISTORY_CAP`] events kept, the
    /// others added to `dropped`, call ids cut. An event naming what the agent cannot reach
    /// is refused: its kind and name.
    pub(crate) fn restored(
        inner: &Inner,
        loaded: &Loaded,
        events: &[LoadEvent],
        dropped: u64,
    ) -> Result<Self, (&'static str, String)> {
        let mut history = History {
            entries: VecDeque::with_capacity(events.len().min(HISTORY_CAP)),
            dropped,
        };
        for event in events {
            let index = match event.kind {
                LoadKind::Skill => loaded.reachable_skill(inner, &event.name).map(SkillIx::get),
                LoadKind::Toolset => loaded.reachable_toolset(inner, &event.name).map(ToolsetIx::get),
                LoadKind::Tool => loaded.reachable_tool(inner, &event.name).map(ToolIx::get),
            }
            .ok_or_else(|| (event.kind.word(), event.name.clone()))?;
            history.push(Entry {
                at: millis(event.at),
                index: u32::try_from(index).expect("manifest tables have fewer than 2^32 entries"),
                action: event.action,
                kind: event.kind,
                call: event
                    .call
                    .as_ref()
                    .map(|call| Arc::new(LoadCall::new(&call.tool, call.id.as_deref()))),
            });
        }
        Ok(history)
    }

    /// The events, oldest first, by name.
    pub(crate) fn events<'a>(
        &'a self,
        inner: &'a Inner,
    ) -> impl ExactSizeIterator<Item = LoadEvent> + DoubleEndedIterator + 'a {
        self.entries.iter().map(move |entry| entry.event(inner))
    }

    pub(crate) fn dropped(&self) -> u64 {
        self.dropped
    }

    fn push(&mut self, entry: Entry) {
        if self.entries.len() == HISTORY_CAP {
            self.entries.pop_front();
            self.dropped = self.dropped.saturating_add(1);
        }
        self.entries.push_back(entry);
    }

    /// Records what changed from `before` to `after`, now: unloads first (skills, toolsets,
    /// tools), then loads in the order they were made, all by `call`.
    pub(crate) fn record(&mut self, before: &Loaded, after: &Loaded, call: Option<&LoadCall>) {
        let at = millis(SystemTime::now());
        let call = call.map(|call| Arc::new(call.clone()));
        let mut push = |action, kind, index: usize| {
            self.push(Entry {
                at,
                index: u32::try_from(index).expect("manifest tables have fewer than 2^32 entries"),
                action,
                kind,
                call: call.clone(),
            });
        };
        for (action, (old, new)) in [
            (LoadAction::Unload, (before, after)),
            (LoadAction::Load, (after, before)),
        ] {
            for s in gone(&old.skills, &new.skills) {
                push(action, LoadKind::Skill, s.get());
            }
            for t in gone(&old.toolsets, &new.toolsets) {
                push(action, LoadKind::Toolset, t.get());
            }
            for id in gone(&old.tools, &new.tools) {
                push(action, LoadKind::Tool, id.get());
            }
        }
    }

    /// The newest event about the `kind` at `index` that `wanted` accepts.
    pub(crate) fn newest(
        &self,
        inner: &Inner,
        wanted: impl Fn(LoadAction, LoadKind, usize) -> bool,
    ) -> Option<LoadEvent> {
        self.entries
            .iter()
            .rev()
            .find(|e| wanted(e.action, e.kind, e.index as usize))
            .map(|e| e.event(inner))
    }
}

impl Entry {
    fn event(&self, inner: &Inner) -> LoadEvent {
        let index = self.index as usize;
        let name = match self.kind {
            LoadKind::Skill => inner.skill(SkillIx::new(index)).name.to_string(),
            LoadKind::Toolset => inner.toolset(ToolsetIx::new(index)).name.to_string(),
            LoadKind::Tool => inner.tool(ToolIx::new(index)).spec.name.clone(),
        };
        LoadEvent {
            action: self.action,
            kind: self.kind,
            name,
            at: UNIX_EPOCH + Duration::from_millis(self.at),
            call: self.call.as_deref().cloned(),
        }
    }
}

/// The items of `old` that `new` lacks, in `old`'s order.
fn gone<T: Copy + PartialEq>(old: &[T], new: &[T]) -> Vec<T> {
    old.iter().copied().filter(|x| !new.contains(x)).collect()
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

/// `at` in milliseconds since the Unix epoch (0 before it).
fn millis(at: SystemTime) -> u64 {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
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
    fn an_event_is_small() {
        assert_eq!(std::mem::size_of::<Entry>(), 24);
        assert_eq!(std::mem::size_of::<History>(), 40);
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
