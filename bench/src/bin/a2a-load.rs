//! The load client of `bench/a2a` (A2A figures, issue 52 item 4), and the floor server it
//! is compared with. One client for every server measured: what differs between two rows is
//! the server.
//!
//! - `a2a-load load --url URL [--clients N] [--messages N] [--warmup N] [--label L] [--floor]`: `N`
//!   keep-alive HTTP/1.1 connections, each sending JSON-RPC `SendMessage` requests
//!   (`A2A-Version: 1.0`, a new message id, no context: each message a new context and task)
//!   one after the other; prints one JSON line: the label, the messages, the seconds, the
//!   messages per second, p50/p90/p99/max latency in µs, and the bytes of one answer. Every
//!   answer is checked: HTTP 200 and a JSON-RPC result holding a task in
//!   `TASK_STATE_COMPLETED` whose text is `you said: <the message's text>` (with `--floor`,
//!   against the echo server, only that it is JSON: it answers the same bytes to all).
//! - `a2a-load contexts --url URL --contexts N [--clients N]`: `N` messages, each in a
//!   context of its own (`contextId` given), so that the server holds `N` conversations;
//!   prints a JSON line when done (the caller reads the server's RSS before and after).
//! - `a2a-load echo --port P --body FILE`: the floor, an HTTP/1.1 server (hyper, one worker
//!   thread, `TCP_NODELAY`) that reads each request's body and answers with FILE's bytes
//!   (an A2A server's real answer), as `application/json`.
//!
//! The client runs on one thread (a current-thread tokio runtime): a Rust client costs the
//! two cores little, so they go to the server measured.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

/// How long one answer may take before the run is abandoned.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let number = |name: &str, default: usize| {
        flag(name).map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| fail(&format!("{name}: `{v}` is not a number")))
        })
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    match args.first().map(String::as_str) {
        Some("load") => {
            let url = flag("--url").unwrap_or_else(|| fail("load: --url URL"));
            let clients = number("--clients", 8).max(1);
            let messages = number("--messages", 2000).max(clients);
            let warmup = number("--warmup", 200);
            let label = flag("--label").unwrap_or_else(|| url.clone());
            let exact = !args.iter().any(|a| a == "--floor");
            let report = runtime.block_on(load(&url, clients, messages, warmup, &label, exact));
            println!("{report}");
        }
        Some("contexts") => {
            let url = flag("--url").unwrap_or_else(|| fail("contexts: --url URL"));
            let contexts = number("--contexts", 1000);
            let clients = number("--clients", 4).max(1);
            let started = Instant::now();
            runtime.block_on(open_contexts(&url, contexts, clients));
            println!(
                "{}",
                json!({"contexts": contexts, "seconds": started.elapsed().as_secs_f64()})
            );
        }
        Some("echo") => {
            let port: u16 = flag("--port")
                .and_then(|p| p.parse().ok())
                .unwrap_or_else(|| fail("echo: --port P"));
            let file = flag("--body").unwrap_or_else(|| fail("echo: --body FILE"));
            let body = std::fs::read(&file).unwrap_or_else(|e| fail(&format!("{file}: {e}")));
            runtime.block_on(echo(port, Bytes::from(body)));
        }
        _ => fail("usage: a2a-load load|contexts|echo ... (see the file's docs)"),
    }
}

fn fail(message: &str) -> ! {
    eprintln!("a2a-load: {message}");
    std::process::exit(2)
}

/// `host:port` of an `http://host:port[/]` URL.
fn address(url: &str) -> String {
    let rest = url.strip_prefix("http://").unwrap_or(url);
    rest.split('/').next().unwrap_or(rest).to_owned()
}

struct Client {
    send: SendRequest<Full<Bytes>>,
    host: String,
    /// Whether the answer must be the task the message asked for (not at the floor).
    exact: bool,
}

impl Client {
    async fn open(addr: &str) -> Client {
        let stream = tokio::net::TcpStream::connect(addr)
            .await
            .unwrap_or_else(|e| fail(&format!("cannot connect to {addr}: {e}")));
        let _ = stream.set_nodelay(true);
        let (send, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap_or_else(|e| fail(&format!("no HTTP/1 handshake with {addr}: {e}")));
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Client {
            send,
            host: addr.to_owned(),
            exact: true,
        }
    }

    /// One `SendMessage` of `text` (in `context` when given): the answer's bytes, checked.
    async fn send_message(&mut self, id: usize, text: &str, context: Option<&str>) -> usize {
        let mut message = json!({"messageId": format!("bench-{id}"), "role": "ROLE_USER", "parts": [{"text": text}]});
        if let Some(context) = context {
            message["contextId"] = json!(context);
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "SendMessage", "params": {"message": message}});
        let request = Request::post("/")
            .header("host", &self.host)
            .header("content-type", "application/json")
            .header("a2a-version", "1.0")
            .body(Full::new(Bytes::from(body.to_string())))
            .expect("a request");
        let exchange = async {
            self.send.ready().await?;
            let response = self.send.send_request(request).await?;
            let status = response.status();
            let bytes = response.into_body().collect().await?.to_bytes();
            Ok::<_, hyper::Error>((status, bytes))
        };
        let (status, bytes) = tokio::time::timeout(ANSWER_WITHIN, exchange)
            .await
            .unwrap_or_else(|_| fail(&format!("no answer within {} s", ANSWER_WITHIN.as_secs())))
            .unwrap_or_else(|e| fail(&format!("the exchange failed: {e}")));
        if self.exact {
            check(status, &bytes, text);
        } else if status != hyper::StatusCode::OK || serde_json::from_slice::<Value>(&bytes).is_err() {
            fail(&format!(
                "the floor answered HTTP {status}: {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        bytes.len()
    }
}

/// The answer is the completed task with the scripted text.
fn check(status: hyper::StatusCode, bytes: &[u8], text: &str) {
    let answer: Value = serde_json::from_slice(bytes).unwrap_or_else(|e| {
        fail(&format!(
            "an answer that is not JSON ({e}): {}",
            String::from_utf8_lossy(bytes)
        ))
    });
    let task = &answer["result"]["task"];
    let expected = format!("you said: {text}");
    let said = task["status"]["message"]["parts"][0]["text"].as_str();
    if status != hyper::StatusCode::OK
        || task["status"]["state"] != "TASK_STATE_COMPLETED"
        || said != Some(expected.as_str())
    {
        fail(&format!(
            "an answer that is not the completed task saying `{expected}` (HTTP {status}): {answer}"
        ));
    }
}

async fn load(url: &str, clients: usize, messages: usize, warmup: usize, label: &str, exact: bool) -> Value {
    let addr = address(url);
    let mut connections = Vec::with_capacity(clients);
    for _ in 0..clients {
        let mut client = Client::open(&addr).await;
        client.exact = exact;
        connections.push(client);
    }
    // Warm-up on the same connections, not timed.
    let per = warmup.div_ceil(clients);
    let warm = connections.iter_mut().enumerate().map(|(c, client)| async move {
        for i in 0..per {
            client.send_message(1_000_000 + c * per + i, "warm up", None).await;
        }
    });
    join(warm).await;
    let per = messages / clients;
    let started = Instant::now();
    let runs = connections.iter_mut().enumerate().map(|(c, client)| async move {
        let mut latencies = Vec::with_capacity(per);
        let mut bytes = 0;
        for i in 0..per {
            let text = format!("message {c}-{i}");
            let sent = Instant::now();
            bytes = client.send_message(c * per + i, &text, None).await;
            latencies.push(sent.elapsed());
        }
        (latencies, bytes)
    });
    let results = join(runs).await;
    let seconds = started.elapsed().as_secs_f64();
    let answer_bytes = results.first().map_or(0, |(_, b)| *b);
    let mut latencies: Vec<Duration> = results.into_iter().flat_map(|(l, _)| l).collect();
    latencies.sort_unstable();
    let at = |q: f64| {
        let i = ((latencies.len() as f64 - 1.0) * q).round() as usize;
        latencies[i].as_micros()
    };
    json!({
        "label": label,
        "clients": clients,
        "messages": latencies.len(),
        "seconds": seconds,
        "per_second": latencies.len() as f64 / seconds,
        "p50_us": at(0.50),
        "p90_us": at(0.90),
        "p99_us": at(0.99),
        "max_us": at(1.0),
        "answer_bytes": answer_bytes,
    })
}

async fn open_contexts(url: &str, contexts: usize, clients: usize) {
    let addr = address(url);
    let mut connections = Vec::with_capacity(clients);
    for _ in 0..clients {
        connections.push(Client::open(&addr).await);
    }
    let runs = connections.iter_mut().enumerate().map(|(c, client)| async move {
        let mut i = c;
        while i < contexts {
            client
                .send_message(
                    2_000_000 + i,
                    &format!("context {i}"),
                    Some(&format!("bench-context-{i}")),
                )
                .await;
            i += clients;
        }
    });
    join(runs).await;
}

/// Runs the futures concurrently on this thread; their outputs in order.
async fn join<F: std::future::Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output> {
    let mut set = Vec::new();
    for future in futures {
        set.push(Box::pin(future));
    }
    let mut outputs: Vec<Option<F::Output>> = set.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (future, output) in set.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    std::task::Poll::Ready(value) => *output = Some(value),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().map(|o| o.expect("every future ended")).collect()
}

async fn echo(port: u16, body: Bytes) {
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .unwrap_or_else(|e| fail(&format!("cannot bind 127.0.0.1:{port}: {e}")));
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let body = body.clone();
        let service = hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
            let body = body.clone();
            async move {
                // The request is read whole, as a server must before it answers.
                let _ = request.into_body().collect().await;
                let mut response = Response::new(Full::new(body));
                response.headers_mut().insert(
                    hyper::header::CONTENT_TYPE,
                    hyper::header::HeaderValue::from_static("application/json"),
                );
                Ok::<_, Infallible>(response)
            }
        });
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
