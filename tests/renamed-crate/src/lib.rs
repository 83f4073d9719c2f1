//! A crate that depends on carnet as `agents`: the build script's manifest, the attribute
//! macros' generated code and the engine all work under that name.

agents::include_manifest!(pub mod manifest);

/// The `math` toolset.
#[agents::toolset("math")]
pub mod math {
    use agents::schemars::JsonSchema;
    use serde::Deserialize;

    /// How to round.
    #[derive(Deserialize, JsonSchema)]
    #[schemars(crate = "agents::schemars")]
    pub struct Rounding {
        /// The number.
        pub value: f64,
        /// Decimal places kept (default 0).
        pub places: Option<u32>,
    }

    /// Adds two numbers.
    #[agents::tool]
    pub fn add(
        /// The first number.
        a: i64,
        /// The second number.
        b: i64,
    ) -> Result<i64, String> {
        a.checked_add(b).ok_or_else(|| "the sum overflows".to_owned())
    }

    /// Rounds a number.
    #[agents::tool]
    #[must_use]
    pub fn round(input: Rounding) -> f64 {
        let scale = 10f64.powi(input.places.unwrap_or(0).try_into().unwrap_or(i32::MAX));
        (input.value * scale).round() / scale
    }
}
