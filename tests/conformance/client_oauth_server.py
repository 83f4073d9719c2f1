"""An MCP server behind OAuth for carnet's client tests (carnet-cli/tests/oauth_login.rs).

The official MCP Python SDK serves both sides: the MCP endpoint (`/mcp`, streamable HTTP,
bearer tokens checked) and the authorization server (RFC 8414 metadata, dynamic client
registration, `/authorize` with PKCE, `/token` with the authorization-code and refresh-token
grants), on one loopback port. What this file adds is the SDK's provider protocol kept in
memory, approving every authorization at once (there is no person to ask), with access
tokens that expire after `--expires` seconds. The conformance suite's own authorization
servers never serve a refresh-token grant: this one exists for the refresh after expiry.

    python client_oauth_server.py [--expires SECS]

Prints its MCP endpoint as its first stdout line; each grant it serves goes to stderr as
`grant: authorization_code` or `grant: refresh_token` (the test counts them).
"""

from __future__ import annotations

import argparse
import secrets
import socket
import sys
import time

import anyio
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class Provider:
    """The SDK's OAuthAuthorizationServerProvider, in memory, approving at once."""

    def __init__(self, expires: int) -> None:
        self.expires = expires
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.access: dict[str, AccessToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code: str):
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None, grant: str) -> OAuthToken:
        print(f"grant: {grant}", file=sys.stderr, flush=True)
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + self.expires,
            resource=resource,
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=self.expires,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )

    async def exchange_authorization_code(self, client, authorization_code: AuthorizationCode) -> OAuthToken:
        del self.codes[authorization_code.code]
        return self._issue(
            client.client_id, authorization_code.scopes, authorization_code.resource, "authorization_code"
        )

    async def load_refresh_token(self, client, refresh_token: str):
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        del self.refresh[refresh_token.token]
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource, "refresh_token")

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = self.access.get(token)
        if access is None or (access.expires_at is not None and access.expires_at < time.time()):
            return None
        return access

    async def revoke_token(self, token) -> None:
        self.access.pop(getattr(token, "token", ""), None)
        self.refresh.pop(getattr(token, "token", ""), None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--expires", type=int, default=3600)
    args = parser.parse_args()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    server = MCPServer(
        "oauth-echo",
        version="1.0.0",
        auth_server_provider=Provider(args.expires),
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            validate_token_resource=False,
            client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=["echo"]),
            required_scopes=["echo"],
        ),
    )

    @server.tool()
    def echo(text: str) -> str:
        """Says `text` back."""
        return text

    print(f"{base}/mcp", flush=True)
    anyio.run(lambda: server.run_streamable_http_async(host="127.0.0.1", port=port))


if __name__ == "__main__":
    main()
