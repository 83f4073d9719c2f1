//! OTLP export of carnet's spans (feature `otel`): `tracing-opentelemetry` in front of the
//! OpenTelemetry SDK's batch processor and `opentelemetry-otlp`'s HTTP exporter (protobuf
//! over plain HTTP; no TLS library).
//!
//! Configured by the standard variables:
//!
//! | variable | effect |
//! | --- | --- |
//! | `OTEL_EXPORTER_OTLP_ENDPOINT` | the collector's base URL (`http://127.0.0.1:4318`); spans go to `/v1/traces` under it. Unset (and no `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`): nothing is exported |
//! | `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` | the full traces URL, used as is |
//! | `OTEL_EXPORTER_OTLP_PROTOCOL` (`_TRACES_PROTOCOL`) | `http/protobuf`, the only one built in; any other value is an error |
//! | `OTEL_SERVICE_NAME` | the resource's `service.name` (else the name the program passes) |
//! | `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT` | as the OpenTelemetry SDK reads them |
//!
//! Spans are batched and sent from a background thread; the [`Guard`] that [`init_from_env`]
//! returns flushes them when it is dropped, so keep it alive until the program ends.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::registry::LookupSpan;

/// Why the exporter could not start.
#[derive(Debug)]
#[non_exhaustive]
pub enum OtlpError {
    /// `OTEL_EXPORTER_OTLP_PROTOCOL` asks for a protocol that is not built in.
    Protocol {
        /// The variable that was read.
        variable: &'static str,
        /// Its value.
        value: String,
    },
    /// The exporter rejected its configuration (an invalid endpoint URL, say).
    Exporter(String),
    /// A global `tracing` subscriber is installed already.
    SubscriberInstalled,
}

impl std::fmt::Display for OtlpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Protocol { variable, value } => write!(
                f,
                "{variable}={value} is not supported: carnet exports OTLP over `http/protobuf` only"
            ),
            Self::Exporter(inner) => write!(f, "the OTLP exporter could not start: {inner}"),
            Self::SubscriberInstalled => f.write_str(
                "a global tracing subscriber is installed already: add `otlp::layer_from_env` to it instead",
            ),
        }
    }
}

impl std::error::Error for OtlpError {}

/// Keeps the exporter running; dropping it flushes the spans not yet sent and stops it.
#[derive(Debug)]
#[must_use = "dropping the guard stops the exporter"]
pub struct Guard {
    provider: SdkTracerProvider,
}

impl Guard {
    /// Sends the spans ended so far now.
    ///
    /// # Errors
    ///
    /// The exporter's error (the collector unreachable, say).
    pub fn flush(&self) -> Result<(), OtlpError> {
        self.provider
            .force_flush()
            .map_err(|e| OtlpError::Exporter(e.to_string()))
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        // Flushes what is batched; an unreachable collector is not the program's failure.
        let _ = self.provider.shutdown();
    }
}

/// Installs a global `tracing` subscriber that exports spans to the collector the `OTEL_*`
/// variables name, when they name one: `Ok(None)` when `OTEL_EXPORTER_OTLP_ENDPOINT` (and
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is unset. `service` is the `service.name` unless
/// `OTEL_SERVICE_NAME` sets another.
///
/// Exports the spans at `INFO` and above of every target but the HTTP stack's (whose spans
/// would trace the exporter itself).
///
/// # Errors
///
/// An unsupported protocol, an exporter that cannot start, or a global subscriber installed
/// already.
///
/// # Examples
///
/// ```no_run
/// fn main() {
///     let _otel = carnet_runtime::telemetry::otlp::init_from_env("my-agent").expect("OTLP export");
///     // ... run the agent; the guard flushes the spans when main returns
/// }
/// ```
pub fn init_from_env(service: &str) -> Result<Option<Guard>, OtlpError> {
    let Some((layer, guard)) = layer_from_env(service)? else {
        return Ok(None);
    };
    let subscriber = tracing_subscriber::registry().with(layer.with_filter(filter()));
    tracing::subscriber::set_global_default(subscriber).map_err(|_| OtlpError::SubscriberInstalled)?;
    Ok(Some(guard))
}

/// The exporting layer, for a program that builds its own subscriber (add a filter: the
/// layer exports every span it sees), and its [`Guard`]; `Ok(None)` when no endpoint is set.
///
/// # Errors
///
/// As [`init_from_env`], less the subscriber.
pub fn layer_from_env<S>(service: &str) -> Result<Option<(impl tracing_subscriber::Layer<S>, Guard)>, OtlpError>
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if !set("OTEL_EXPORTER_OTLP_ENDPOINT") && !set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
        return Ok(None);
    }
    for variable in ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"] {
        if let Ok(value) = std::env::var(variable)
            && !value.is_empty()
            && value != "http/protobuf"
        {
            return Err(OtlpError::Protocol { variable, value });
        }
    }
    // The exporter builds its own HTTP client (see `tls::default_provider_if_none`).
    #[cfg(feature = "remote-tls")]
    crate::remote::tls::default_provider_if_none();
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .build()
        .map_err(|e| OtlpError::Exporter(e.to_string()))?;
    let mut resource = Resource::builder();
    let named = set("OTEL_SERVICE_NAME")
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|a| a.contains("service.name="));
    if !named {
        resource = resource.with_service_name(service.to_owned());
    }
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource.build())
        .build();
    let tracer = provider.tracer("carnet");
    // The GenAI attributes only: no source location (always this crate's telemetry module),
    // thread or busy/idle timings.
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_tracked_inactivity(false);
    Ok(Some((layer, Guard { provider })))
}

/// `INFO` and above, less the HTTP stack's own spans and events.
fn filter() -> Targets {
    Targets::new()
        .with_default(LevelFilter::INFO)
        .with_target("hyper", LevelFilter::OFF)
        .with_target("hyper_util", LevelFilter::OFF)
        .with_target("reqwest", LevelFilter::OFF)
        .with_target("h2", LevelFilter::OFF)
        .with_target("tower", LevelFilter::OFF)
        .with_target("rmcp", LevelFilter::OFF)
        .with_target("opentelemetry", LevelFilter::OFF)
        .with_target("opentelemetry_sdk", LevelFilter::OFF)
        .with_target("opentelemetry_otlp", LevelFilter::OFF)
}
