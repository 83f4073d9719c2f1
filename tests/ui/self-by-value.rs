pub struct Db;

#[carnet::toolset("db-tools")]
impl Db {
    #[carnet::tool]
    pub fn query(self, sql: String) -> String {
        sql
    }

    #[carnet::tool]
    pub fn count(&self) -> u64 {
        0
    }
}

fn main() {}
