//! `carnet explain`: the error index's pages, the same text the guide's index is made of.

mod common;
use common::{carnet, stderr, stdout};

use carnet_codegen::Code;

#[test]
fn explain_prints_the_page_of_a_code_or_name() {
    let page = Code::UnknownSkill.explanation();
    for arg in ["E0006", "e0006", "unknown-skill"] {
        let out = carnet(&["explain", arg]);
        assert!(out.status.success(), "{arg}: {}", stderr(&out));
        assert_eq!(stdout(&out), page, "{arg}");
    }
    assert!(page.contains("```carnet,E0006"));
}

#[test]
fn explain_lists_every_code_and_answers_in_json() {
    let out = carnet(&["explain"]);
    assert!(out.status.success());
    let list = stdout(&out);
    assert_eq!(list.lines().count(), Code::ALL.len());
    assert!(list.lines().any(|l| l.starts_with("W0016  unknown-tool-key")), "{list}");

    let out = carnet(&["explain", "W0003", "--format", "json"]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["code"], "W0003");
    assert_eq!(json["name"], "skill-name-style");
    assert_eq!(json["severity"], "warning");
    assert_eq!(json["explanation"], Code::SkillNameStyle.explanation());
}

#[test]
fn an_unknown_code_is_a_usage_error_with_a_did_you_mean() {
    let out = carnet(&["explain", "unknown-skil"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("no diagnostic code `unknown-skil`"), "{err}");
    assert!(err.contains("did you mean `unknown-skill`?"), "{err}");
    assert!(stdout(&out).is_empty());
}
