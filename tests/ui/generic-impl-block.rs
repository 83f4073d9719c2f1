pub struct Db<T>(pub T);

#[carnet::toolset("db-tools")]
impl<T> Db<T> {
    #[carnet::tool]
    pub fn query(&self, sql: String) -> String {
        sql
    }

    #[carnet::tool]
    pub fn count(&self) -> u64 {
        0
    }
}

fn main() {}
