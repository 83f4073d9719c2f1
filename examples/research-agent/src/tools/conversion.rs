//! Unit conversion: the supported units and their factors, [`convert`], and the `units`
//! toolset built on them.

use schemars::JsonSchema;
use serde::Serialize;

/// A unit of measure: `value_in_base = value * factor + offset`.
struct Unit {
    symbol: &'static str,
    dimension: &'static str,
    factor: f64,
    offset: f64,
}

const fn unit(symbol: &'static str, dimension: &'static str, factor: f64) -> Unit {
    Unit {
        symbol,
        dimension,
        factor,
        offset: 0.0,
    }
}

/// Supported units; factors are exact definitions where one exists.
const UNITS: &[Unit] = &[
    unit("m", "length", 1.0),
    unit("km", "length", 1000.0),
    unit("cm", "length", 0.01),
    unit("mm", "length", 0.001),
    unit("mi", "length", 1609.344),
    unit("yd", "length", 0.9144),
    unit("ft", "length", 0.3048),
    unit("in", "length", 0.0254),
    unit("kg", "mass", 1.0),
    unit("g", "mass", 0.001),
    unit("mg", "mass", 0.000_001),
    unit("lb", "mass", 0.453_592_37),
    unit("oz", "mass", 0.028_349_523_125),
    unit("t", "mass", 1000.0),
    unit("K", "temperature", 1.0),
    Unit {
        symbol: "C",
        dimension: "temperature",
        factor: 1.0,
        offset: 273.15,
    },
    Unit {
        symbol: "F",
        dimension: "temperature",
        factor: 5.0 / 9.0,
        offset: 273.15 - 32.0 * 5.0 / 9.0,
    },
    unit("J", "energy", 1.0),
    unit("kJ", "energy", 1000.0),
    unit("kWh", "energy", 3_600_000.0),
    unit("cal", "energy", 4.184),
    unit("kcal", "energy", 4184.0),
    unit("BTU", "energy", 1_055.055_852_62),
    unit("L", "volume", 1.0),
    unit("mL", "volume", 0.001),
    unit("m3", "volume", 1000.0),
    unit("gal", "volume", 3.785_411_784),
    unit("qt", "volume", 0.946_352_946),
    unit("cup", "volume", 0.236_588_236_5),
    unit("m/s", "speed", 1.0),
    unit("km/h", "speed", 1.0 / 3.6),
    unit("mph", "speed", 0.447_04),
    unit("kn", "speed", 1852.0 / 3600.0),
];

fn find_unit(symbol: &str) -> Result<&'static Unit, String> {
    UNITS.iter().find(|u| u.symbol == symbol).ok_or_else(|| {
        let close: Vec<&str> = UNITS
            .iter()
            .map(|u| u.symbol)
            .filter(|u| u.eq_ignore_ascii_case(symbol))
            .collect();
        match close.as_slice() {
            [one] => format!("unknown unit `{symbol}`; did you mean `{one}`?"),
            _ => format!("unknown unit `{symbol}`; call listUnits to see the supported units"),
        }
    })
}

/// A conversion's result.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Conversion {
    /// The value converted.
    pub value: f64,
    /// Its unit.
    pub from: String,
    /// The result, rounded to 6 significant digits.
    pub result: f64,
    /// The result's unit.
    pub to: String,
    /// What is measured.
    pub dimension: String,
}

fn round_significant(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(digits - 1 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// Converts `value` from one unit to another of the same dimension.
///
/// # Errors
///
/// Unknown units, or units of different dimensions.
pub fn convert(value: f64, from: &str, to: &str) -> Result<Conversion, String> {
    let (a, b) = (find_unit(from)?, find_unit(to)?);
    if a.dimension != b.dimension {
        return Err(format!(
            "cannot convert {} (`{from}`) to {} (`{to}`)",
            a.dimension, b.dimension
        ));
    }
    let base = value * a.factor + a.offset;
    let result = (base - b.offset) / b.factor;
    Ok(Conversion {
        value,
        from: from.to_owned(),
        result: round_significant(result, 6),
        to: to.to_owned(),
        dimension: a.dimension.to_owned(),
    })
}

/// Unit conversions.
#[carnet::toolset("units")]
pub mod units {
    use std::collections::BTreeMap;

    use super::{Conversion, UNITS, convert};

    /// Converts a value between units of one dimension.
    #[carnet::tool]
    pub fn convert_units(
        /// The value to convert.
        value: f64,
        /// Its unit's symbol, such as `km` or `F`.
        from: String,
        /// The target unit's symbol, of the same dimension.
        to: String,
    ) -> Result<Conversion, String> {
        convert(value, &from, &to)
    }

    /// Lists the supported units, by dimension.
    #[carnet::tool]
    pub fn list_units(
        /// Only this dimension's units, such as `length` (default: every dimension).
        dimension: Option<String>,
    ) -> Result<BTreeMap<String, Vec<String>>, String> {
        let mut all: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for unit in UNITS {
            all.entry(unit.dimension.to_owned())
                .or_default()
                .push(unit.symbol.to_owned());
        }
        match dimension {
            None => Ok(all),
            Some(d) => all
                .remove_entry(&d)
                .map(|(k, v)| BTreeMap::from([(k, v)]))
                .ok_or_else(|| {
                    format!(
                        "unknown dimension `{d}`; the dimensions are: {}",
                        all.keys().cloned().collect::<Vec<_>>().join(", ")
                    )
                }),
        }
    }
}
