pub struct Db;

#[carnet::toolset("db-tools")]
impl Clone for Db {
    fn clone(&self) -> Self {
        Db
    }
}

fn main() {}
