//! Domain tool implementations and what a call returns.
//!
//! A tool implementation is a name, an input schema and a [`ToolHandler`]. The binding
//! attributes (`#[carnet::toolset]`) generate them; programs reading content at run time
//! build them with [`ToolImpl::from_fn`]. Every call returns a [`ToolOutput`]: the tool's
//! JSON result, or a structured error the model can read (`{"success": false, "error": ...}`).

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use serde_json::{Value, json};

use crate::cancel::Cancellation;
use crate::extensions::Extensions;
use crate::state::{StateType, States};
pub use crate::tool_error::ToolError;

/// A boxed, sendable future: what [`ToolHandler::call`] returns.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a tool call returns: the tool's JSON result, or a structured error result.
///
/// Serialises as `{"value", "isError", "exposes"?}` (part of a saved
/// [`Transcript`](crate::chat::Transcript)).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOutput {
    /// The result sent back to the model.
    pub value: Value,
    /// Whether the call failed (MCP's `isError`, Anthropic's `is_error`).
    pub is_error: bool,
    /// The domain tools this call made callable (canonical names): a load's tools. In
    /// [`ExposureMode::Deferred`](crate::ExposureMode::Deferred) providers render them in
    /// their reference form (Anthropic `tool_reference` blocks, an `OpenAI` `additional_tools`
    /// item).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exposes: Vec<String>,
    /// The result as MCP content blocks, when the tool gave them itself (a remote toolset's
    /// server does): `carnet::mcp` sends these as they are instead of the value's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Box<[Value]>>,
}

impl ToolOutput {
    /// A successful result.
    #[must_use]
    pub fn ok(value: Value) -> Self {
        ToolOutput {
            value,
            is_error: false,
            exposes: Vec::new(),
            content: None,
        }
    }

    /// A failed call: `{"success": false, "error": message}` plus `extra`'s fields.
    #[must_use]
    pub fn error(message: impl Into<String>, extra: Value) -> Self {
        let mut value = json!({"success": false, "error": message.into()});
        if let (Some(object), Value::Object(extra)) = (value.as_object_mut(), extra) {
            object.extend(extra);
        }
        ToolOutput {
            value,
            is_error: true,
            exposes: Vec::new(),
            content: None,
        }
    }

    /// The output with the tools it made callable (see [`ToolOutput::exposes`]).
    #[must_use]
    pub fn exposing(mut self, tools: Vec<String>) -> Self {
        self.exposes = tools;
        self
    }

    /// The output with its MCP content blocks (see [`ToolOutput::content`]).
    #[must_use]
    pub fn with_content(mut self, content: Vec<Value>) -> Self {
        self.content = Some(content.into_boxed_slice());
        self
    }

    /// The error message of a failed call.
    #[must_use]
    pub fn error_message(&self) -> Option<&str> {
        if self.is_error {
            self.value.get("error").and_then(Value::as_str)
        } else {
            None
        }
    }

    /// The result as text for a provider's tool-result message (a JSON string is sent
    /// without quotes).
    #[must_use]
    pub fn to_text(&self) -> String {
        match &self.value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    }
}

/// What a tool sees of its call: the application state, the conversation's
/// [`Extensions`] (whose user, which permissions) and the session.
pub struct Context<'a> {
    pub(crate) states: &'a States,
    pub(crate) extensions: &'a Extensions,
    /// The calling session's id ([`Session`](crate::Session)s never share one): what a remote
    /// A2A agent's per-session context is keyed by.
    #[cfg_attr(not(feature = "remote-a2a"), allow(dead_code))]
    pub(crate) session: u64,
    pub(crate) agent: &'a str,
    pub(crate) loaded_skills: Vec<&'a str>,
    pub(crate) tool: &'a str,
    pub(crate) call_id: Option<&'a str>,
    pub(crate) cancellation: &'a Cancellation,
    /// The engine the call runs in (a [`Carnet`](crate::Carnet), erased: the engine's module
    /// imports this one), for [`Context::remote`](crate::remote::Remote).
    #[cfg_attr(not(feature = "remote"), allow(dead_code))]
    pub(crate) engine: &'a (dyn Any + Send + Sync),
}

impl<'a> Context<'a> {
    /// The id the model (or the MCP client) gave this call, when it gave one: what to
    /// correlate a tool's own logs with the conversation's.
    #[must_use]
    pub fn call_id(&self) -> Option<&'a str> {
        self.call_id
    }

    /// The signal that fires when this call is abandoned (see [`Cancellation`]): clone it
    /// into work the tool hands elsewhere.
    #[must_use]
    pub fn cancellation(&self) -> &'a Cancellation {
        self.cancellation
    }

    /// The application state given to [`crate::CarnetBuilder::state`], if it is a `T`, or
    /// the part of it a tool of the engine takes as `State<T>` (a typed parameter, checked
    /// when the engine is built, says the same without an `Option`).
    #[must_use]
    pub fn state<T: Any + Send + Sync>(&self) -> Option<&'a T> {
        self.states.get::<T>()
    }

    /// The conversation's value of type `T`, set with [`crate::Session::insert`].
    ///
    /// # Examples
    ///
    /// ```
    /// # use carnet_runtime::{Carnet, Context, Manifest, ToolError, ToolImpl, ToolHandler, ToolsetImpl, BoxFuture, block_on};
    /// # use serde_json::{json, Value};
    /// # let manifest = Manifest::from_json(r#"{"agents": {"a": {"name": "a", "description": "A",
    /// #   "initialSkills": ["s"], "prompt": ""}}, "skills": {"s": {"name": "s", "description": "S",
    /// #   "toolsets": ["t"], "content": ""}}, "toolsets": {"t": {"name": "t", "description": "T",
    /// #   "content": "", "tools": [{"name": "whoami", "description": "Who is asking"}]}}}"#)?;
    /// struct User(String);
    /// struct WhoAmI;
    /// impl ToolHandler for WhoAmI {
    ///     fn call<'a>(&'a self, context: &'a Context<'a>, _: Value) -> BoxFuture<'a, Result<Value, ToolError>> {
    ///         let user = context.extension::<User>().map(|u| u.0.clone());
    ///         Box::pin(async move { Ok(json!(user)) })
    ///     }
    /// }
    /// let whoami = ToolImpl::new("whoami", json!({"type": "object"}), WhoAmI);
    /// let carnet = Carnet::builder(&manifest).toolset(ToolsetImpl::new("t", [whoami])).build()?;
    /// let mut session = carnet.session("a")?.with(User("ada".into()));
    /// assert_eq!(block_on(session.call("whoami", json!({}))).value, json!("ada"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn extension<T: Any + Send + Sync>(&self) -> Option<&'a T> {
        self.extensions.get::<T>()
    }

    /// The conversation's extensions.
    #[must_use]
    pub fn extensions(&self) -> &'a Extensions {
        self.extensions
    }

    /// The agent of the session.
    #[must_use]
    pub fn agent(&self) -> &'a str {
        self.agent
    }

    /// The skills loaded in the session (initial ones included), in load order.
    #[must_use]
    pub fn loaded_skills(&self) -> &[&'a str] {
        &self.loaded_skills
    }

    /// The name of the tool being called.
    #[must_use]
    pub fn tool(&self) -> &'a str {
        self.tool
    }
}

impl fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("agent", &self.agent)
            .field("tool", &self.tool)
            .field("call_id", &self.call_id)
            .field("loaded_skills", &self.loaded_skills)
            .field("extensions", &self.extensions)
            .finish_non_exhaustive()
    }
}

/// The code behind a domain tool: JSON arguments in, JSON result or error out.
pub trait ToolHandler: Send + Sync + 'static {
    /// Runs the tool. Argument deserialization errors should name the offending field.
    fn call<'a>(&'a self, context: &'a Context<'a>, arguments: Value) -> BoxFuture<'a, Result<Value, ToolError>>;

    /// Runs the tool and gives its whole output: what the session calls. The default wraps
    /// [`ToolHandler::call`]'s value; override it to give MCP content blocks
    /// ([`ToolOutput::with_content`]) or an error output of your own.
    fn call_output<'a>(
        &'a self,
        context: &'a Context<'a>,
        arguments: Value,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let call = self.call(context, arguments);
        Box::pin(async move { call.await.map(ToolOutput::ok) })
    }
}

struct FnHandler<F>(F);

impl<F, Fut> ToolHandler for FnHandler<F>
where
    F: Fn(Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
{
    fn call<'a>(&'a self, _context: &'a Context<'a>, arguments: Value) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin((self.0)(arguments))
    }
}

/// The implementation of one domain tool.
#[derive(Clone)]
pub struct ToolImpl {
    /// The tool's name, as declared by its toolset.
    pub name: Cow<'static, str>,
    /// Used only where the manifest has no description (a doc comment, say).
    pub description: Option<Cow<'static, str>>,
    /// JSON Schema of the input (an object schema).
    pub input_schema: Arc<Value>,
    /// JSON Schema of the result, if known (see [`ToolImpl::with_output_schema`]).
    pub output_schema: Option<Arc<Value>>,
    /// The code.
    pub handler: Arc<dyn ToolHandler>,
    /// The state types the tool takes (`State<T>`), checked when the engine is built.
    pub(crate) states: Vec<StateType>,
}

impl fmt::Debug for ToolImpl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolImpl")
            .field("name", &self.name)
            .field("input_schema", &self.input_schema)
            .finish_non_exhaustive()
    }
}

impl ToolImpl {
    /// A tool from an async function of its JSON arguments.
    ///
    /// # Examples
    ///
    /// ```
    /// use carnet_runtime::ToolImpl;
    /// use serde_json::json;
    ///
    /// let echo = ToolImpl::from_fn(
    ///     "echo",
    ///     json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    ///     |args| async move { Ok(args["text"].clone()) },
    /// );
    /// assert_eq!(echo.name, "echo");
    /// ```
    pub fn from_fn<F, Fut>(name: impl Into<Cow<'static, str>>, input_schema: Value, f: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
    {
        ToolImpl {
            name: name.into(),
            description: None,
            input_schema: Arc::new(input_schema),
            output_schema: None,
            handler: Arc::new(FnHandler(f)),
            states: Vec::new(),
        }
    }

    /// A tool from a handler.
    pub fn new(name: impl Into<Cow<'static, str>>, input_schema: Value, handler: impl ToolHandler) -> Self {
        ToolImpl {
            name: name.into(),
            description: None,
            input_schema: Arc::new(input_schema),
            output_schema: None,
            handler: Arc::new(handler),
            states: Vec::new(),
        }
    }

    /// Declares the JSON Schema of the tool's successful results: the tool spec carries it
    /// and MCP lists it as the tool's `outputSchema` (when it is an object schema, as MCP
    /// requires), where clients validate `structuredContent` against it.
    #[must_use]
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(Arc::new(schema));
        self
    }

    /// Declares that the tool reads a state of type `T` (through [`Context::state`]): the
    /// engine's `build()` fails, naming the tool and the type, when its state does not
    /// provide one. `#[carnet::toolset]` declares the `State<T>` parameters itself.
    #[must_use]
    pub fn with_state<T: 'static>(mut self) -> Self {
        let ty = StateType::of::<T>();
        if !self.states.iter().any(|s| s.id == ty.id) {
            self.states.push(ty);
        }
        self
    }

    /// The state types the tool takes.
    #[must_use]
    pub fn states(&self) -> &[StateType] {
        &self.states
    }

    /// Sets the fallback description (used only where the manifest has none).
    #[must_use]
    pub fn with_description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// The implementations of one toolset's tools.
#[derive(Debug, Clone)]
pub struct ToolsetImpl {
    /// The toolset's name, as in TOOLSET.md.
    pub toolset: Cow<'static, str>,
    /// One implementation per declared tool.
    pub tools: Vec<ToolImpl>,
}

impl ToolsetImpl {
    /// The implementations of toolset `toolset`.
    pub fn new(toolset: impl Into<Cow<'static, str>>, tools: impl IntoIterator<Item = ToolImpl>) -> Self {
        ToolsetImpl {
            toolset: toolset.into(),
            tools: tools.into_iter().collect(),
        }
    }
}

/// Polls a future, turning a panic into `Err(message)`.
pub(crate) struct CatchUnwind<F>(pub(crate) F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_message(payload.as_ref()))),
        }
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string panic payload".to_owned()
    }
}

/// The implementations of one toolset, typed by the toolset's name: `Name` spells it
/// ([`ToolsetNamed<'m', 'a', 't', 'h'>`](crate::binding::ToolsetNamed) for `math`), so the generated
/// `Toolsets` struct only accepts, in its `search_tools` field, what
/// `#[carnet::toolset("search-tools")]` generated. Putting one toolset's implementation in
/// another's field is a type error whose message spells both names.
///
/// `Needs` lists the states its tools take (`State<T>`, as [`Need`](crate::Need)s), so the
/// engine of a compiled manifest is built only with a state providing them.
pub struct BoundToolset<Name, Needs = ()>(ToolsetImpl, PhantomData<fn() -> (Name, Needs)>);

impl<Name, Needs> BoundToolset<Name, Needs> {
    #[doc(hidden)]
    #[must_use]
    pub fn __new(toolset: ToolsetImpl) -> Self {
        BoundToolset(toolset, PhantomData)
    }

    /// The toolset's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.0.toolset
    }

    /// The implementations, unchecked: for binding a compiled toolset to a manifest read at
    /// run time ([`CarnetBuilder::toolset`](crate::CarnetBuilder::toolset), checked when
    /// the engine is built). There is deliberately no `From`: a compiled manifest's engine
    /// takes its `Toolsets` whole ([`Carnet::new`](crate::Carnet::new)).
    #[must_use]
    pub fn into_impl(self) -> ToolsetImpl {
        self.0
    }
}

impl<Name, Needs> fmt::Debug for BoundToolset<Name, Needs> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BoundToolset").field(&self.0).finish()
    }
}

/// Runs a future to completion on the current thread: for programs and tests without an
/// async runtime (command-line tools, scripts). Tools that need a reactor (tokio's I/O or
/// timers) must run inside that runtime instead.
///
/// # Examples
///
/// ```
/// assert_eq!(carnet_runtime::block_on(async { 2 + 3 }), 5);
/// ```
pub fn block_on<F: Future>(future: F) -> F::Output {
    struct ThreadWaker(std::thread::Thread);

    impl std::task::Wake for ThreadWaker {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }

    let waker = std::task::Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = TaskContext::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        std::thread::park();
    }
}
