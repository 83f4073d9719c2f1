//! Tracing for the example: with the `otel` feature and `OTEL_EXPORTER_OTLP_ENDPOINT` set,
//! carnet's spans (one trace per conversation: the turn, each model call, each tool call)
//! go to that OTLP/HTTP collector:
//!
//! ```text
//! OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 cargo run -p research-agent --features otel
//! ```

/// Keeps the exporter running while it lives; dropping it flushes the spans.
#[derive(Debug)]
pub struct Telemetry {
    #[cfg(feature = "otel")]
    guard: Option<carnet::telemetry::otlp::Guard>,
}

impl Telemetry {
    /// Flushes the spans, then ends the process with `code` (`std::process::exit` alone
    /// would skip the flush).
    pub fn exit(self, code: i32) -> ! {
        #[cfg(feature = "otel")]
        drop(self.guard);
        #[cfg(not(feature = "otel"))]
        let Telemetry {} = self;
        std::process::exit(code)
    }
}

/// Starts the export when the feature and the endpoint ask for it. A configuration the
/// exporter refuses is reported on stderr and the agent runs untraced.
pub fn init() -> Telemetry {
    #[cfg(feature = "otel")]
    {
        let guard = carnet::telemetry::otlp::init_from_env("research-agent").unwrap_or_else(|e| {
            eprintln!("warning: no tracing: {e}");
            None
        });
        Telemetry { guard }
    }
    #[cfg(not(feature = "otel"))]
    Telemetry {}
}
