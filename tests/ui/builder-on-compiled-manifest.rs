//! A compiled manifest's engine is made from its `Toolsets` (`Carnet::new`): the run-time
//! builder, which would compile and fail at `build()` for every toolset left out, refuses it.

mod manifest {
    use carnet::__private as rt;
    include!(env!("CARNET_UI_MANIFEST_RS"));
}

fn main() {
    let _carnet = carnet::Carnet::builder(&manifest::MANIFEST).build();
}
