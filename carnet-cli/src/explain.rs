//! `carnet explain CODE`: the error index's page for a diagnostic code, from the same files
//! the guide's error index is generated from (`carnet-codegen/src/explain/`).

use carnet_codegen::Code;
use carnet_codegen::explain::parse_code;

/// Prints the page of `code` (`E0006`, `e0006` or `unknown-skill`), or, without a code, one
/// line per code. With `json`, the same as JSON.
pub(crate) fn run(code: Option<&str>, json: bool) -> Result<(), String> {
    let Some(text) = code else {
        if json {
            let codes: Vec<_> = Code::ALL.iter().map(|&c| entry(c, false)).collect();
            outln!("{}", pretty(&serde_json::Value::Array(codes)));
        } else {
            for &code in Code::ALL {
                outln!("{code}  {:<28} {}", code.name(), code.summary());
            }
        }
        return Ok(());
    };
    let Some(code) = parse_code(text) else {
        let names = Code::ALL.iter().flat_map(|c| [c.as_str(), c.name()]);
        let hint = carnet_codegen::explain::closest(text, names)
            .map(|near| format!(" (did you mean `{near}`?)"))
            .unwrap_or_default();
        return Err(format!(
            "error: no diagnostic code `{text}`{hint}; `carnet explain` lists them all"
        ));
    };
    if json {
        outln!("{}", pretty(&entry(code, true)));
    } else {
        out!("{}", code.explanation());
    }
    Ok(())
}

fn entry(code: Code, page: bool) -> serde_json::Value {
    let mut value = serde_json::json!({
        "code": code.as_str(),
        "name": code.name(),
        "severity": code.severity().as_str(),
        "summary": code.summary(),
    });
    if page {
        value["explanation"] = code.explanation().into();
    }
    value
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).expect("JSON values serialise")
}
