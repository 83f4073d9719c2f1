//! Compiles a 100-skill synthetic catalog into a generated `'static` manifest, so the
//! benchmarks can compare it with the same catalog parsed from JSON.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let dir = Path::new(&out).join("catalog-100");
    let _ = std::fs::remove_dir_all(&dir);
    let write = |path: &str, text: String| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("create the folder");
        std::fs::write(path, text).expect("write the file");
    };
    for i in 0..100 {
        let body = "Follow the procedure step by step and report what you find. ".repeat(60);
        write(
            &format!("skills/skill-{i:05}/SKILL.md"),
            format!(
                "---\nname: skill-{i:05}\ndescription: Skill {i}, a synthetic skill of the benchmark catalog\ntoolsets: [toolset-{i:05}]\n---\n{body}\n"
            ),
        );
        let mut tools = String::new();
        for j in 0..5 {
            let _ = write!(
                tools,
                "  - name: tool{i}x{j}\n    description: Tool {j} of toolset {i}, which does a synthetic thing\n"
            );
        }
        write(
            &format!("toolsets/toolset-{i:05}/TOOLSET.md"),
            format!("---\nname: toolset-{i:05}\ndescription: Toolset {i}\ntools:\n{tools}---\nUsage.\n"),
        );
    }
    let skills: Vec<String> = (1..100).map(|i| format!("skill-{i:05}")).collect();
    let skills = skills.join(", ");
    write(
        "agents/agent/AGENT.md",
        format!(
            "---\nname: agent\ndescription: Uses every skill\ninitialSkills: [skill-00000]\nskills: [{skills}]\n---\nYou help.\n"
        ),
    );
    carnet_codegen::Config::new()
        .dir(&dir)
        .compile()
        .unwrap_or_else(|e| e.exit());
}
