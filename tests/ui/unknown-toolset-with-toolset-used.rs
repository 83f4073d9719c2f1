mod manifest {
    use carnet::__private as rt;
    include!(env!("CARNET_UI_MANIFEST_RS"));
}

#[carnet::toolset("weather")]
pub mod weather {
    #[carnet::tool]
    pub fn forecast(city: String) -> String {
        city
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
        math: weather::toolset(),
        files: other(),
    };
    let _builder = carnet::Carnet::new(&manifest::MANIFEST, toolsets);
}
