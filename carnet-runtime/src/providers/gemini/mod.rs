//! Google Gemini API (`generateContent`, AI Studio and Vertex AI): function declarations and
//! `functionCall` parts; whole request bodies ([`request`], [`write_request`]) and responses
//! ([`parse_response`]) of the Gemini API, as `models::Gemini` sends and reads them.
//!
//! # Schemas
//!
//! A function declaration takes its parameters in one of two fields:
//!
//! - `parameters`, a subset of the `OpenAPI` 3.0 schema object, which every Gemini model and
//!   API version accepts. [`tools`] sends this, converted from JSON Schema by
//!   [`parameters`].
//! - `parametersJsonSchema`, JSON Schema as it is, accepted by recent API versions.
//!   [`tools_json_schema`] sends this: use it for schemas `parameters` cannot express
//!   (recursive types) when the model accepts it.
//!
//! The conversion keeps what `parameters` can say and drops the assertions it cannot (which
//! only widens what the schema accepts: the tool still checks its arguments). It fails only
//! where dropping would lose the shape itself.
//!
//! | JSON Schema | `parameters` |
//! | --- | --- |
//! | `$ref` to `$defs`/`definitions` (or any local pointer) | the target inlined, the `$ref`'s siblings applied over it |
//! | recursive `$ref` | error: use [`tools_json_schema`] |
//! | `type: [T, "null"]` (or `nullable: true`) | `type: T, nullable: true` |
//! | `type: [A, B]` | `anyOf: [{type: A}, {type: B}]` |
//! | `anyOf`/`oneOf` with a `null` branch | the other branches, `nullable: true`; one branch left is merged into its parent |
//! | `oneOf` | `anyOf` |
//! | `anyOf`/`oneOf` of string `enum`s or `const`s (a documented Rust enum) | one `enum`, the branches' descriptions listed in `description` |
//! | `allOf` of one schema | merged into its parent; of several: error |
//! | `const: v` | `enum: [v]` |
//! | `enum` of strings (with `null`) | `enum`, `type: string` (and `nullable: true`) |
//! | `enum` or `const` of other values | dropped, the values listed in `description` (`parameters` enums are strings only) |
//! | `format` | kept for `float`/`double` numbers, `int32`/`int64` integers, `enum`/`date-time` strings, else dropped |
//! | `properties`, `required` | kept on objects; `required` keeps only listed properties |
//! | `items` | kept on arrays (tuples are dropped) |
//! | `examples` | its first value as `example` |
//! | `description`, `title`, `default`, `pattern`, `minimum`, `maximum`, `minLength`, `maxLength`, `minItems`, `maxItems`, `minProperties`, `maxProperties`, `example` | kept |
//! | `$schema`, `$id`, `$defs`, `additionalProperties`, `exclusiveMinimum`, `uniqueItems`, `not`, ... | dropped |
//!
//! A tool without parameters (an object schema with no `properties`) gets no `parameters`
//! at all: Gemini rejects an object schema with empty `properties`. Types stay lowercase
//! (`"string"`), which the API accepts as well as `"STRING"`.

pub use super::bodies::write_gemini_request as write_request;
pub use super::conversation::{
    GeminiOptions as RequestOptions, gemini_request as request, gemini_tool_config as tool_config,
};
pub use super::response::gemini_response as parse_response;
pub use tools::{
    parameters, parse_tool_calls, tools, tools_json_schema, write_system_instruction, write_tools,
    write_tools_json_schema,
};

mod openapi;
mod stream;
pub(super) mod tools;
