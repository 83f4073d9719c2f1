//! What each feature set of the bench adds to the crate `carnet init` scaffolds: a real model
//! call (`openai`), an MCP server on stdio (`mcp`) or streamable HTTP (`mcp-http`), run when
//! the first argument asks for it, so the code is compiled and linked as an author's would be.

pub fn run(carnet: &carnet::Carnet) {
    let _ = carnet; // unused in the default feature set
    let Some(mode) = std::env::args().nth(1) else {
        return;
    };
    #[cfg(any(feature = "openai", feature = "mcp"))]
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    match mode.as_str() {
        #[cfg(feature = "openai")]
        "--live" => runtime.block_on(async {
            let mut model = carnet::models::OpenAi::from_env("gpt-4o-mini").expect("OPENAI_API_KEY is set");
            let mut session = carnet.session(crate::manifest::agents::ASSISTANT);
            let mut messages = vec![carnet::chat::Message::User("Remember to buy milk".into())];
            let outcome = carnet::chat::run(&mut session, &mut model, &mut messages, 8, |_| {}).await;
            println!("{outcome:?}");
        }),
        #[cfg(feature = "mcp")]
        "--serve" => runtime.block_on(async {
            let server = carnet::mcp::Server::new(carnet, "assistant").expect("the agent exists");
            server.serve_stdio().await.expect("serves stdio");
        }),
        #[cfg(feature = "mcp-http")]
        "--http" => runtime.block_on(async {
            let server = carnet::mcp::Server::new(carnet, "assistant").expect("the agent exists");
            let http = server.bind_http("127.0.0.1:0").await.expect("binds loopback");
            println!("{}", http.url());
            http.run().await.expect("serves HTTP");
        }),
        other => eprintln!("unknown mode `{other}` for this feature set"),
    }
}
