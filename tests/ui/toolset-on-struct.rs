#[carnet::toolset("db-tools")]
pub struct Db;

fn main() {}
