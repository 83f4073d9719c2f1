pub struct Db {
    pub queries: u64,
}

#[carnet::toolset("db-tools")]
impl Db {
    #[carnet::tool]
    pub fn query(&mut self, sql: String) -> String {
        self.queries += 1;
        sql
    }

    #[carnet::tool]
    pub fn count(&self) -> u64 {
        self.queries
    }
}

fn main() {
    let _db_tools = Db { queries: 0 }.toolset();
}
