//! What carnet's client declares to a remote toolset's server, and who answers the server's
//! sampling and elicitation requests: the hosts of a gateway, a program's handlers
//! ([`RemoteOptions::on_elicitation`]), or nobody (the capability is not declared).

use serde_json::{Value, json};

use crate::engine::options::{RemoteOptions, RequestHandler};

/// Who answers a server's sampling and elicitation requests, which decides the capabilities
/// carnet's client declares to it: each only when something can answer.
#[derive(Clone, Default)]
pub(crate) struct Answers {
    /// The engine is served over MCP (the gateway): a request goes to the host of the call,
    /// when it declared the capability. Both capabilities are declared (the connection is
    /// every host's; each call's host decides).
    pub(crate) hosts: bool,
    /// The program's answer to `sampling/createMessage`.
    pub(crate) sampling: Option<RequestHandler>,
    /// The program's answer to `elicitation/create`.
    pub(crate) elicitation: Option<RequestHandler>,
}

impl Answers {
    /// The program's handlers of `options`, and the hosts when `hosts`.
    pub(crate) fn new(options: &RemoteOptions, hosts: bool) -> Self {
        Answers {
            hosts,
            sampling: options.sampling.clone(),
            elicitation: options.elicitation.clone(),
        }
    }

    /// Answers as a gateway's connection does: every capability declared, the host of each
    /// call answering.
    pub(crate) fn gateway() -> Self {
        Answers {
            hosts: true,
            ..Answers::default()
        }
    }

    /// The client capabilities these answers make true.
    pub(super) fn capabilities(&self) -> Value {
        let mut capabilities = json!({});
        if self.hosts || self.sampling.is_some() {
            capabilities["sampling"] = json!({});
        }
        if self.hosts {
            // Hosts answer both modes (a host that cannot is refused by its own client).
            capabilities["elicitation"] = json!({ "form": {}, "url": {} });
        } else if self.elicitation.is_some() {
            capabilities["elicitation"] = json!({ "form": {} });
        }
        capabilities
    }

    /// The program's handler of `capability`.
    pub(super) fn handler(&self, capability: &str) -> Option<&RequestHandler> {
        match capability {
            "sampling" => self.sampling.as_ref(),
            _ => self.elicitation.as_ref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remote::upstream::Handler;
    use rmcp::ClientHandler;
    use std::sync::Arc;

    #[test]
    fn the_client_declares_only_what_something_answers() {
        let handler = RequestHandler::new(|_: Value| async { Ok(Value::Null) });
        let declared = |answers: Answers| answers.capabilities();
        assert_eq!(
            declared(Answers::default()),
            json!({}),
            "nothing answers: nothing declared"
        );
        assert_eq!(
            declared(Answers::gateway()),
            json!({ "sampling": {}, "elicitation": { "form": {}, "url": {} } })
        );
        let elicitation = Answers {
            elicitation: Some(handler.clone()),
            ..Answers::default()
        };
        assert_eq!(declared(elicitation), json!({ "elicitation": { "form": {} } }));
        let sampling = Answers {
            sampling: Some(handler),
            ..Answers::default()
        };
        assert_eq!(declared(sampling), json!({ "sampling": {} }));
        // rmcp reads what is declared.
        let handler = Handler::new(Arc::default(), Answers::default());
        let info = serde_json::to_value(handler.get_info()).unwrap();
        assert_eq!(info["capabilities"], json!({}), "{info}");
        let handler = Handler::new(Arc::default(), Answers::gateway());
        let info = serde_json::to_value(handler.get_info()).unwrap();
        assert!(info["capabilities"]["elicitation"]["url"].is_object(), "{info}");
        assert!(info["capabilities"]["sampling"].is_object(), "{info}");
    }
}
