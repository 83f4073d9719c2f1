mod manifest {
    use carnet::__private as rt;
    include!(env!("CARNET_UI_MANIFEST_RS"));
}

#[carnet::toolset("fles")]
pub mod files {
    #[carnet::tool]
    pub fn file_read(path: String) -> String {
        path
    }

    #[carnet::tool(name = "file-read")]
    pub fn file_read_dashed(path: String) -> String {
        path.to_uppercase()
    }
}

// The implementations of the toolsets this case is not about, each in its own field.
fn other<Name>() -> carnet::tools::BoundToolset<Name> {
    unimplemented!()
}

fn main() {
    let toolsets = manifest::Toolsets {
        search_tools: other(),
        db_tools: other(),
        described: other(),
        math: other(),
        files: files::toolset(),
    };
    let _builder = carnet::Carnet::new(&manifest::MANIFEST, toolsets);
}

// Where the type is written out, the fallback `toolset()` still fits its field.
fn _toolsets() -> manifest::Toolsets {
    manifest::Toolsets {
        search_tools: other(),
        db_tools: other(),
        described: other(),
        math: other(),
        files: files::toolset(),
    }
}
