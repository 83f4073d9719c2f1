//! Token counts of what a model receives (feature `tokens`): OpenAI's `o200k_base`
//! encoding (GPT-4o and later) through `tiktoken-rs`. Other models' tokenizers differ by a
//! few percent; the ratios between progressive and everything-up-front hold.

use std::sync::OnceLock;

use tiktoken_rs::CoreBPE;

use crate::providers::openai;
use crate::tool::ToolSpec;

fn encoding() -> &'static CoreBPE {
    static ENCODING: OnceLock<CoreBPE> = OnceLock::new();
    ENCODING.get_or_init(|| tiktoken_rs::o200k_base().expect("the o200k_base encoding is bundled"))
}

/// The tokens of `text`.
#[must_use]
pub fn count(text: &str) -> usize {
    encoding().encode_with_special_tokens(text).len()
}

/// The tokens of a tool list, as OpenAI's chat `tools` JSON (what is sent on the wire).
#[must_use]
pub fn tools(specs: &[ToolSpec]) -> usize {
    if specs.is_empty() {
        return 0;
    }
    let json = openai::chat_tools(specs, &openai::Options::default()).map_or_else(
        |_| serde_json::to_string(&specs.iter().map(|s| &*s.input_schema).collect::<Vec<_>>()).unwrap_or_default(),
        |v| v.to_string(),
    );
    count(&json)
}

/// The tokens of a request's context: system prompt and tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextTokens {
    /// The system prompt.
    pub system: usize,
    /// The tool list.
    pub tools: usize,
}

impl ContextTokens {
    /// System prompt plus tools.
    #[must_use]
    pub fn total(self) -> usize {
        self.system + self.tools
    }
}

/// The tokens of a system prompt and a tool list.
#[must_use]
pub fn context(system: &str, specs: &[ToolSpec]) -> ContextTokens {
    ContextTokens {
        system: count(system),
        tools: tools(specs),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_o200k_tokens() {
        assert_eq!(super::count("hello world"), 2);
        assert_eq!(super::count(""), 0);
        assert_eq!(super::tools(&[]), 0);
    }
}
