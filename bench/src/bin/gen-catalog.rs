//! Writes a synthetic carnet directory of N skills that both carnet and TS Carnet 0.3.0
//! accept (tool names declared in TOOLSET.md, one tool file each; skill folders named after
//! their skills). Past 2,000 skills it raises `limits.maxFiles` in carnet.config.json.
//!
//! Usage: `gen-catalog <skills> <dir>`

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use carnet_bench::{Rng, text};

fn write(path: &Path, contents: &str) {
    fs::create_dir_all(path.parent().expect("a file has a parent")).expect("create the folder");
    fs::write(path, contents).expect("write the file");
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(count), Some(dir)) = (args.next(), args.next()) else {
        eprintln!("usage: gen-catalog <skills> <dir>");
        std::process::exit(2);
    };
    let count: usize = count.parse().expect("a number of skills");
    let dir = Path::new(&dir);
    if dir.exists() {
        fs::remove_dir_all(dir).expect("clear the old catalog");
    }
    let mut rng = Rng::new(0x00c0_ffee);
    let mut skills = Vec::with_capacity(count);
    for i in 0..count {
        let skill = format!("skill-{i:05}");
        let toolset = format!("toolset-{i:05}");
        let tools: Vec<String> = (0..rng.range(3, 10)).map(|j| format!("tool{i}x{j}")).collect();
        let mut toolset_md = format!(
            "---\nname: {toolset}\ndescription: {}\ntools:\n",
            text(&mut rng, 150).replace('\n', " ")
        );
        for tool in &tools {
            let _ = writeln!(toolset_md, "  - {tool}");
            let len = rng.range(100, 300);
            let description = text(&mut rng, len).replace('\n', " ");
            let docs = text(&mut rng, 300);
            write(
                &dir.join(format!("toolsets/{toolset}/{tool}.md")),
                &format!("---\nname: {tool}\ndescription: {description}\n---\n{docs}\n"),
            );
        }
        let _ = write!(toolset_md, "---\n# {toolset}\n\n{}\n", text(&mut rng, 500));
        write(&dir.join(format!("toolsets/{toolset}/TOOLSET.md")), &toolset_md);
        let (description_len, body_len) = (rng.range(100, 300), rng.range(2048, 8192));
        let description = text(&mut rng, description_len).replace('\n', " ");
        let body = text(&mut rng, body_len);
        write(
            &dir.join(format!("skills/{skill}/SKILL.md")),
            &format!(
                "---\nname: {skill}\ndescription: {description}\ntoolsets: [{toolset}]\n---\n# {skill}\n\n{body}\n"
            ),
        );
        skills.push(skill);
    }
    let initial = skills.first().cloned().unwrap_or_default();
    write(
        &dir.join("agents/agent/AGENT.md"),
        &format!(
            "---\nname: agent\ndescription: Uses every skill\ninitialSkills: [{initial}]\nskills: [{}]\n---\nYou are a helpful agent.\n",
            skills.iter().skip(1).cloned().collect::<Vec<_>>().join(", ")
        ),
    );
    // Some 8.5 files a skill: past 2,000 skills that is over the default `limits.maxFiles`
    // (20,000), which a trusted catalog raises in carnet.config.json.
    if count * 11 > 20_000 {
        write(
            &dir.join("carnet.config.json"),
            &format!("{{\"limits\": {{\"maxFiles\": {}}}}}\n", count * 11),
        );
    }
    println!("wrote {count} skills to {}", dir.display());
}
