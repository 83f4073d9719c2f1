//! The desk agent end to end, offline: a scripted model reads a file of the desk through the
//! official MCP filesystem server, keeps a note with a toolset written in Rust, reads a
//! reference document with a Rust tool that reads the official MCP everything server's
//! resources through the engine's connection (`Carnet::remote`), and asks the official MCP
//! time server for the time in Paris. Each server starts only when its skill is loaded.
//!
//! ```sh
//! bash tests/remote/setup.sh     # the servers, from npm and PyPI, into target/remote
//! DESK_FS_SERVER=target/remote/bin/fs-server DESK_TIME_SERVER=target/remote/bin/time-server \
//!   DESK_EVERYTHING_SERVER=target/remote/bin/everything-server \
//!   DESK_DIR=/path/to/a/folder cargo run -p desk-agent -- hello.txt
//! ```
//!
//! Without the variables, the servers are looked up as `mcp-server-filesystem` (npm
//! `@modelcontextprotocol/server-filesystem`), `mcp-server-everything` (npm
//! `@modelcontextprotocol/server-everything`) and `mcp-server-time` (the Python package) on
//! the `PATH`.

use carnet::Carnet;
use carnet::chat::{self, Step};
use desk_agent::manifest::{MANIFEST, Toolsets, agents};
use desk_agent::{Notes, ScriptedDesk, question};

fn main() {
    let file = std::env::args().nth(1).unwrap_or_else(|| "hello.txt".to_owned());
    if std::env::var_os("DESK_DIR").is_none() {
        eprintln!("error: set DESK_DIR to the folder the filesystem server may read (see `cargo doc -p desk-agent`)");
        std::process::exit(2);
    }
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let carnet = Carnet::new(
        &MANIFEST,
        Toolsets {
            notes: Notes::default().toolset(),
        },
    )
    .build()
    .expect("every toolset is bound; remote ones by the engine");
    let mut session = carnet.session(agents::DESK);
    let mut model = ScriptedDesk::new(&file);
    let mut messages = vec![question(&file)];
    let outcome = runtime
        .block_on(chat::run(&mut session, &mut model, &mut messages, 12, |step: &Step| {
            for (call, output) in &step.calls {
                let mark = if output.is_error { "✗" } else { "✓" };
                let text = output.to_text().replace('\n', " ");
                let text: String = text.chars().take(100).collect();
                println!("{mark} {}({}) → {text}", call.name, call.arguments);
            }
        }))
        .expect("the scripted model does not fail");
    for toolset in ["filesystem", "library", "time"] {
        let started = carnet.remote_started(toolset).unwrap_or(false);
        println!(
            "server of `{toolset}`: {}",
            if started { "started" } else { "never started" }
        );
    }
    println!(
        "\n{}",
        outcome.answer.as_deref().unwrap_or("(no answer within the step limit)")
    );
}
