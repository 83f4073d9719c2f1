mod manifest {
    use carnet::__private as rt;
    include!(env!("CARNET_UI_MANIFEST_RS"));
}

fn any<T>() -> T {
    unimplemented!()
}

fn main() {
    let _toolsets = manifest::Toolsets {
        search_tools: any(),
        db_tools: any(),
        described: any(),
        math: any(),
    };
}
