//! What each feature set of the bench adds to the crate `carnet init` scaffolds: a real model
//! call (`openai`, `gemini`), an MCP server on stdio (`mcp`) or streamable HTTP (`mcp-http`),
//! an A2A server (`a2a`; the model of each context is the author's, none here), the agent in
//! a rig agent (`rig`: carnet-rig on rig's OpenAI provider), run when the first argument asks
//! for it, so the code is compiled and linked as an author's would be. (`remote-a2a` needs no
//! code: the engine binds the `a2a:` toolsets of the content it is built over.)

pub fn run(carnet: &carnet::Carnet) {
    let _ = carnet; // unused in the default feature set
    let Some(mode) = std::env::args().nth(1) else {
        return;
    };
    #[cfg(any(feature = "openai", feature = "mcp", feature = "gemini", feature = "a2a", feature = "rig"))]
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
        #[cfg(feature = "gemini")]
        "--live-gemini" => runtime.block_on(async {
            let mut model = carnet::models::Gemini::from_env("gemini-2.5-flash").expect("GEMINI_API_KEY is set");
            let mut session = carnet.session(crate::manifest::agents::ASSISTANT);
            let mut messages = vec![carnet::chat::Message::User("Remember to buy milk".into())];
            let outcome = carnet::chat::run(&mut session, &mut model, &mut messages, 8, |_| {}).await;
            println!("{outcome:?}");
        }),
        #[cfg(feature = "a2a")]
        "--a2a" => runtime.block_on(async {
            let no_model = |_: &str| -> Result<Box<dyn carnet::chat::ChatModel>, carnet::chat::ModelError> {
                Err(carnet::chat::ModelError::Config {
                    what: "model".into(),
                    message: "none in this bench".into(),
                })
            };
            let server = carnet::a2a::Server::new(carnet, "assistant", no_model).expect("the agent exists");
            let http = server.bind("127.0.0.1:0").await.expect("binds loopback");
            println!("{}", http.url());
            http.run().await.expect("serves HTTP");
        }),
        #[cfg(feature = "rig")]
        "--rig" => runtime.block_on(async {
            let chat = carnet_rig::Conversation::new(carnet.session(crate::manifest::agents::ASSISTANT))
                .expect("every tool has an alias");
            let model = rig_core::providers::openai::OpenAIConfig::from_env()
                .expect("OPENAI_API_KEY is set")
                .client()
                .chat("gpt-4o-mini");
            let agent = rig_agent::AgentBuilder::new(model)
                .tool_server_handle(chat.tool_server())
                .add_hook(chat.hook())
                .build();
            let answer = agent.prompt("Remember to buy milk").await;
            println!("{:?}", answer.map(|response| response.output().to_owned()));
        }),
        other => eprintln!("unknown mode `{other}` for this feature set"),
    }
}
