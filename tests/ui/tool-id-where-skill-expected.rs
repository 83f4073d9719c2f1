//! A session's methods take the typed id of their kind only: a tool's id does not name a
//! skill.

mod manifest {
    use carnet::__private as rt;
    include!(env!("CARNET_UI_MANIFEST_RS"));
}

fn main() {
    let carnet = carnet::Carnet::builder(manifest::MANIFEST.manifest())
        .allow_unimplemented()
        .build()
        .unwrap();
    let mut session = carnet.session(manifest::agents::TESTER);
    let _ = session.load_skill(manifest::tools::ADD);
}
