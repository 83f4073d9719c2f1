"""A TLS-terminating proxy for tests: HTTPS on 127.0.0.1, plain TCP to a target.

    python3 tests/remote/tls_proxy.py CERT KEY TARGET_PORT

Listens on an ephemeral port of 127.0.0.1 with the certificate CERT (PEM chain) and key KEY,
prints `https://127.0.0.1:PORT` as its first line, and copies each accepted connection's bytes
to and from 127.0.0.1:TARGET_PORT until either side closes. Python's standard library only.
Stops when its stdin closes (the test that started it ended) or after ten minutes.
"""

import socket
import ssl
import sys
import threading


def pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(listener: socket.socket, context: ssl.SSLContext, target: int) -> None:
    while True:
        client, _ = listener.accept()
        try:
            tls = context.wrap_socket(client, server_side=True)
        except (ssl.SSLError, OSError):
            # A client that refuses the certificate ends the handshake: nothing to forward.
            client.close()
            continue
        upstream = socket.create_connection(("127.0.0.1", target), timeout=30)
        upstream.settimeout(None)
        for a, b in ((tls, upstream), (upstream, tls)):
            threading.Thread(target=pump, args=(a, b), daemon=True).start()


def main() -> None:
    cert, key, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.create_server(("127.0.0.1", 0))
    print(f"https://127.0.0.1:{listener.getsockname()[1]}", flush=True)
    threading.Thread(target=serve, args=(listener, context, target), daemon=True).start()
    # Until the test closes our stdin, at most ten minutes.
    done = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    done.wait(600)


if __name__ == "__main__":
    main()
