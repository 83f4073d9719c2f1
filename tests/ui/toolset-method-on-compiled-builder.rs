//! `Carnet::new`'s builder has every toolset already: it offers no way to add one, nor to
//! accept unimplemented tools.

mod manifest {
    use carnet::__private as rt;
    include!(env!("CARNET_UI_MANIFEST_RS"));
}

fn any<T>() -> T {
    unimplemented!()
}

fn main() {
    let toolsets: manifest::Toolsets = manifest::Toolsets {
        search_tools: any(),
        db_tools: any(),
        described: any(),
        math: any(),
        files: any(),
    };
    let _builder = carnet::Carnet::new(&manifest::MANIFEST, toolsets).allow_unimplemented();
}
