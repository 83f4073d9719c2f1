#[carnet::toolset("files")]
pub mod files {
    #[carnet::tool]
    pub fn fileread(path: String) -> String {
        path
    }
}

fn main() {}
