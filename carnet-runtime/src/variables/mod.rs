//! Variable injection: `{{ NAME }}` placeholders in agent prompts and skill contents.
//!
//! # Placeholders
//!
//! A placeholder is `{{`, optional whitespace, a name, optional whitespace and `}}`:
//!
//! - a **name** is `[A-Za-z_][A-Za-z0-9_]*` and is case-sensitive: `{{ user }}` and
//!   `{{ USER }}` are two variables. (TS Carnet only accepts uppercase names; carnet also
//!   accepts lowercase and mixed-case ones, so `{{ userName }}` works.) Non-ASCII letters are
//!   not name characters: `{{ NOMBRE_Ñ }}` is not a placeholder;
//! - **whitespace** is any Unicode whitespace ([`char::is_whitespace`]): spaces, tabs,
//!   newlines… `{{VAR}}`, `{{ VAR }}` and `{{\tVAR\n}}` are the same placeholder.
//!
//! Text that does not have this exact form stays as it is: `{{ 123 }}`, `{{ A-B }}`,
//! `{{ A.B }}`, `{{ A B }}`, `{{ }}`, `{{ VAR }` (one closing brace), `{{ VAR` (unterminated).
//! Extra braces are kept: `{{{ VAR }}}` gives `{` + value + `}`. In `{{ A_{{ B }} }}` only
//! the inner `{{ B }}` is a placeholder, giving `{{ A_<value of B> }}`.
//!
//! # Injection
//!
//! - A placeholder whose name is **not defined** stays verbatim (its whole text, whitespace
//!   included). A variable defined as `""` is replaced by the empty string.
//! - The text is scanned **once, left to right**. Values are inserted literally (`$&` or
//!   `\1` mean nothing special) and are **never re-expanded**: a value holding `{{ X }}`
//!   stays as is, so variables referring to each other cannot loop. There is no escaping
//!   mechanism.
//!
//! # Layers
//!
//! Values come from layers; a later layer wins over an earlier one:
//!
//! 1. **environment variables** whose name starts with an allowed prefix (by default
//!    [`DEFAULT_ENV_PREFIXES`](crate::manifest::DEFAULT_ENV_PREFIXES): `CARNET_` and
//!    `PUBLIC_`; the `envPrefix` setting of `carnet.config.json` changes them). The
//!    placeholder uses the full name (`{{ CARNET_API_URL }}`); prefixes are not stripped. An
//!    empty prefix list reads no environment variable; the prefix `""` allows all of them;
//! 2. **default variables**: those of `carnet.config.json` (in the manifest), then those the
//!    application gives when it builds its `Carnet`, which win over the manifest's;
//! 3. **per-call variables**, given to one prompt build ([`Variables::inject_with`]).
//!
//! The environment is the lowest layer, where the design documents put it highest (TS Carnet
//! 0.3 orders the layers as carnet does): the program that builds the engine, and the call
//! that renders a prompt, know better than the host's environment what a prompt should say.
//!
//! Layers 1 and 2 are merged once into one [`Variables`] ([`Variables::layered`],
//! [`Variables::from_manifest`]); the per-call layer is looked up first at injection time,
//! without building a merged map.
//!
//! The environment is read **once**, when the [`Variables`] value is built
//! ([`Variables::from_env`]), not at each injection. TS Carnet reads `process.env` on every
//! call; a snapshot makes the same prompt come out the same for the whole life of the value
//! (deterministic, and cacheable by the provider's prompt cache) and keeps the environment
//! out of the hot path. Build a new value to see new environment values.
//!
//! # Performance
//!
//! Injection runs on every prompt build. It finds `{` with a `memchr` search, allocates
//! nothing when no placeholder resolves (the text comes back as [`Cow::Borrowed`]), and
//! otherwise allocates only the output string. Time is linear in the length of the text
//! plus the length of the inserted values; a lookup is a binary-tree search by name.
//!
//! # Examples
//!
//! ```
//! use carnet_runtime::variables::Variables;
//!
//! let defaults: Variables = [("USER", "Ana"), ("city", "Lyon")].into_iter().collect();
//! assert_eq!(defaults.inject("Hi {{ USER }} from {{city}}!"), "Hi Ana from Lyon!");
//! assert_eq!(defaults.inject("{{ UNKNOWN }} stays"), "{{ UNKNOWN }} stays");
//!
//! let call: Variables = [("USER", "Bo")].into_iter().collect();
//! assert_eq!(defaults.inject_with("Hi {{ USER }}", Some(&call)), "Hi Bo");
//! ```

mod placeholders;

use carnet_manifest::order;
pub use placeholders::Placeholders;
use placeholders::{is_name_byte, is_name_start};

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use crate::manifest::Manifest;

/// A set of named values to inject into `{{ NAME }}` placeholders.
///
/// Every name is valid ([`Variables::is_valid_name`]). Iteration is in name order. The
/// [`Debug`] output shows names and value lengths, not values: an environment snapshot can
/// hold secrets.
///
/// See the [module documentation](self) for the placeholder syntax and the layers.
///
/// # Examples
///
/// ```
/// use carnet_runtime::variables::Variables;
///
/// let mut vars = Variables::new();
/// vars.set("topic", "Rust")?;
/// assert_eq!(vars.get("topic"), Some("Rust"));
/// assert!(vars.set("not-a-name", "x").is_err());
/// assert_eq!(vars.inject("About {{ topic }}."), "About Rust.");
/// # Ok::<(), carnet_runtime::variables::InvalidName>(())
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Variables {
    map: BTreeMap<String, String>,
}

/// A variable name that does not match `[A-Za-z_][A-Za-z0-9_]*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidName(pub String);

impl std::fmt::Display for InvalidName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Self(inner) = self;
        write!(
            f,
            "`{inner}` is not a valid variable name: expected an ASCII letter or `_`, then ASCII letters, digits or `_`"
        )
    }
}

impl std::error::Error for InvalidName {}

impl Variables {
    /// No variables.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A snapshot of the process environment: the variables whose name starts with one of
    /// `prefixes` and is a valid variable name (others could never be referenced). Entries
    /// that are not UTF-8 are skipped.
    ///
    /// An empty `prefixes` reads nothing; the prefix `""` allows every variable. The
    /// environment is read now, once: later changes to it are not seen.
    ///
    /// # Examples
    ///
    /// ```
    /// use carnet_runtime::{manifest::DEFAULT_ENV_PREFIXES, variables::Variables};
    ///
    /// let env = Variables::from_env(&DEFAULT_ENV_PREFIXES);
    /// assert!(env.iter().all(|(name, _)| name.starts_with("CARNET_") || name.starts_with("PUBLIC_")));
    /// assert!(Variables::from_env::<&str>(&[]).is_empty());
    /// ```
    #[must_use]
    pub fn from_env<P: AsRef<str>>(prefixes: &[P]) -> Self {
        if prefixes.is_empty() {
            return Self::new();
        }
        Self::from_env_iter(
            std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
            prefixes,
        )
    }

    /// Like [`Variables::from_env`], from the given `(name, value)` pairs instead of the
    /// process environment (for tests, or an environment read elsewhere).
    ///
    /// # Examples
    ///
    /// ```
    /// use carnet_runtime::variables::Variables;
    ///
    /// let env = [("CARNET_A", "1"), ("HOME", "/root"), ("PUBLIC_B", "2")].map(|(k, v)| (k.to_owned(), v.to_owned()));
    /// let vars = Variables::from_env_iter(env, &["CARNET_", "PUBLIC_"]);
    /// assert_eq!(vars.inject("{{ CARNET_A }} {{ PUBLIC_B }} {{ HOME }}"), "1 2 {{ HOME }}");
    /// ```
    #[must_use]
    pub fn from_env_iter<P: AsRef<str>>(vars: impl IntoIterator<Item = (String, String)>, prefixes: &[P]) -> Self {
        let map =
            order::map(vars.into_iter().filter(|(name, _)| {
                prefixes.iter().any(|p| name.starts_with(p.as_ref())) && Self::is_valid_name(name)
            }));
        Self { map }
    }

    /// The variables a manifest brings: a snapshot of the environment with the manifest's
    /// prefixes ([`Manifest::env_prefixes`], `envPrefix` in `carnet.config.json`), under the
    /// manifest's default variables ([`Manifest::variables`]). Default variables with an
    /// invalid name are skipped (no placeholder could reference them).
    ///
    /// An application's own defaults go on top with [`Variables::layered`].
    ///
    /// # Examples
    ///
    /// ```
    /// use carnet_runtime::{Manifest, variables::Variables};
    ///
    /// let manifest = Manifest::from_json(r#"{
    ///     "agents": {}, "skills": {}, "toolsets": {},
    ///     "variables": { "TONE": "friendly" }, "envPrefix": []
    /// }"#)?;
    /// let app: Variables = [("USER", "Ana")].into_iter().collect();
    /// let vars = Variables::from_manifest(&manifest).layered(&app);
    /// assert_eq!(vars.inject("{{ TONE }} {{ USER }}"), "friendly Ana");
    /// # Ok::<(), carnet_runtime::ManifestError>(())
    /// ```
    #[must_use]
    pub fn from_manifest(manifest: &Manifest) -> Self {
        let mut vars = Self::from_env(&manifest.env_prefixes);
        for (name, value) in manifest.variables.iter() {
            if Self::is_valid_name(name) {
                vars.map.insert(name.to_string(), value.to_string());
            }
        }
        vars
    }

    /// Whether `name` matches `[A-Za-z_][A-Za-z0-9_]*`, the names placeholders can hold.
    ///
    /// ```
    /// use carnet_runtime::variables::Variables;
    ///
    /// assert!(Variables::is_valid_name("userName_2"));
    /// assert!(Variables::is_valid_name("_"));
    /// assert!(!Variables::is_valid_name("2nd"));
    /// assert!(!Variables::is_valid_name("A-B"));
    /// assert!(!Variables::is_valid_name("NOMBRE_Ñ"));
    /// assert!(!Variables::is_valid_name(""));
    /// ```
    #[must_use]
    pub const fn is_valid_name(name: &str) -> bool {
        let bytes = name.as_bytes();
        if bytes.is_empty() || !is_name_start(bytes[0]) {
            return false;
        }
        let mut i = 1;
        while i < bytes.len() {
            if !is_name_byte(bytes[i]) {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Sets the variable `name` to `value`, replacing a previous value.
    ///
    /// # Errors
    ///
    /// [`InvalidName`] when `name` does not match `[A-Za-z_][A-Za-z0-9_]*`; nothing is set.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) -> Result<(), InvalidName> {
        let name = name.into();
        if !Self::is_valid_name(&name) {
            return Err(InvalidName(name));
        }
        self.map.insert(name, value.into());
        Ok(())
    }

    /// The value of the variable `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&str> {
        self.map.get(name).map(String::as_str)
    }

    /// The number of variables.
    #[must_use]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether there is no variable.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The variables as `(name, value)`, in name order.
    #[must_use]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + DoubleEndedIterator + Clone {
        self.map.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// These variables with `over` on top: where both define a name, `over`'s value wins.
    ///
    /// ```
    /// use carnet_runtime::variables::Variables;
    ///
    /// let env: Variables = [("A", "env"), ("B", "env")].into_iter().collect();
    /// let app: Variables = [("B", "app")].into_iter().collect();
    /// let vars = env.layered(&app);
    /// assert_eq!(vars.inject("{{A}} {{B}}"), "env app");
    /// ```
    #[must_use]
    pub fn layered(&self, over: &Variables) -> Variables {
        let mut map = self.map.clone();
        map.extend(over.map.iter().map(|(k, v)| (k.clone(), v.clone())));
        Variables { map }
    }

    /// `text` with every placeholder whose name is defined replaced by its value.
    ///
    /// Returns [`Cow::Borrowed`] when nothing is replaced. Same as
    /// [`inject_with(text, None)`](Variables::inject_with).
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use carnet_runtime::variables::Variables;
    ///
    /// let vars: Variables = [("NAME", "Ana")].into_iter().collect();
    /// assert_eq!(vars.inject("{{NAME}}, {{ NAME }}, {{{ NAME }}}"), "Ana, Ana, {Ana}");
    /// assert!(matches!(vars.inject("{{ OTHER }} {{ 1 }}"), Cow::Borrowed(_)));
    /// ```
    #[must_use]
    pub fn inject<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.inject_with(text, None)
    }

    /// `text` with every placeholder replaced by its value in `call` if defined there,
    /// else in `self`; placeholders defined in neither stay verbatim.
    ///
    /// `call` is the per-call layer: it wins over `self` without a merged set being built.
    /// Returns [`Cow::Borrowed`] when nothing is replaced.
    ///
    /// ```
    /// use carnet_runtime::variables::Variables;
    ///
    /// let defaults: Variables = [("VERSION", "2.0"), ("NAME", "x")].into_iter().collect();
    /// let call: Variables = [("VERSION", "3.0")].into_iter().collect();
    /// assert_eq!(defaults.inject_with("{{ NAME }} v{{ VERSION }}", Some(&call)), "x v3.0");
    /// ```
    #[must_use]
    pub fn inject_with<'a>(&self, text: &'a str, call: Option<&Variables>) -> Cow<'a, str> {
        let call = call.filter(|c| !c.is_empty());
        if self.is_empty() && call.is_none() {
            return Cow::Borrowed(text);
        }
        let mut out: Option<String> = None;
        let mut copied = 0;
        for (range, name) in Self::placeholders(text) {
            let value = match call.and_then(|c| c.get(name)) {
                Some(value) => value,
                None => match self.get(name) {
                    Some(value) => value,
                    None => continue,
                },
            };
            let out = out.get_or_insert_with(|| String::with_capacity(text.len() + value.len()));
            out.push_str(&text[copied..range.start]);
            out.push_str(value);
            copied = range.end;
        }
        match out {
            None => Cow::Borrowed(text),
            Some(mut out) => {
                out.push_str(&text[copied..]);
                Cow::Owned(out)
            }
        }
    }

    /// The placeholders of `text`, defined or not, left to right: the byte range of each
    /// whole placeholder and its name. These are exactly the places
    /// [`inject`](Variables::inject) would replace if the names were defined.
    ///
    /// `Variables::placeholders(text).next().is_some()` tells whether `text` uses variables.
    ///
    /// ```
    /// use carnet_runtime::variables::Variables;
    ///
    /// let text = "{{ A }} {{ 1 }} {{{b}}}";
    /// let found: Vec<_> = Variables::placeholders(text).collect();
    /// assert_eq!(found, [(0..7, "A"), (17..22, "b")]);
    /// ```
    #[must_use]
    pub fn placeholders(text: &str) -> Placeholders<'_> {
        Placeholders::new(text)
    }
}

impl fmt::Debug for Variables {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Redacted(usize);
        impl fmt::Debug for Redacted {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "<{} bytes>", self.0)
            }
        }
        f.write_str("Variables ")?;
        f.debug_map()
            .entries(self.map.iter().map(|(k, v)| (k, Redacted(v.len()))))
            .finish()
    }
}

/// Collects `(name, value)` pairs; a later pair wins over an earlier one with the same name.
///
/// # Panics
///
/// When a name is not valid ([`Variables::is_valid_name`]): names given in code are checked
/// like literals. Use [`Variables::set`] for names that come from input.
impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Variables {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut vars = Variables::new();
        vars.extend(iter);
        vars
    }
}

/// Adds `(name, value)` pairs, replacing the values of names already defined.
///
/// # Panics
///
/// When a name is not valid ([`Variables::is_valid_name`]). Use [`Variables::set`] for
/// names that come from input.
impl<K: Into<String>, V: Into<String>> Extend<(K, V)> for Variables {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (name, value) in iter {
            if let Err(e) = self.set(name, value) {
                panic!("{e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Variables {
        pairs.iter().copied().collect()
    }

    #[test]
    fn placeholder_ranges() {
        let text = "a{{ X }}b{{{y}}}\u{a0}{{\u{2003}Z\u{3000}}}";
        let found: Vec<_> = Variables::placeholders(text).collect();
        assert_eq!(found, [(1..8, "X"), (10..15, "y"), (18..29, "Z")]);
    }

    #[test]
    fn unicode_whitespace_and_non_ascii_after_brace() {
        let v = vars(&[("Z", "z")]);
        assert_eq!(v.inject("{{\u{2003}Z\u{3000}}}"), "z");
        assert_eq!(v.inject("{{é}}{{\u{a0}Z }}"), "{{é}}z");
        assert_eq!(v.inject("{é{{Z}}"), "{éz");
    }

    #[test]
    fn debug_hides_values() {
        let v = vars(&[("SECRET", "hunter2")]);
        assert_eq!(format!("{v:?}"), r#"Variables {"SECRET": <7 bytes>}"#);
    }

    #[test]
    fn empty_call_layer_is_ignored() {
        let v = Variables::new();
        assert!(matches!(
            v.inject_with("{{ A }}", Some(&Variables::new())),
            Cow::Borrowed(_)
        ));
    }
}
