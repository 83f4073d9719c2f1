//! The `carnet` command (see the library's docs for what each subcommand does and its exit
//! statuses).

fn main() -> std::process::ExitCode {
    carnet_cli::main()
}
