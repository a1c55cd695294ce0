"""Streamable HTTP, guarded: Host / Origin checks on every bind address, bearer tokens, disconnects.

The SDK turns its DNS-rebinding protection on only for the literal hosts 127.0.0.1, localhost and
::1, so `--host 0.0.0.0` (or `127.1`) served every Host and Origin. Here one ASGI guard in front of
the SDK's app checks, for every request:
- Host: a loopback address (recognised by address: 127.1, [::1], ...), `localhost`, the bind
  address itself, or an `--allowed-host`; anything else is 421 (a rebinding attack names its own
  domain here);
- Origin (browsers send it): absent, a loopback or `localhost` origin, or an `--allowed-origin`;
  anything else is 403;
- Authorization: `Bearer <token>`, compared in constant time; 401 otherwise. The token is
  KERNEL_EVAL_TOKEN or --auth-token-file; without either, one is generated once into the home
  (`http-token`, mode 0600, readable only by the owner) and its path printed: on a shared machine
  every local user reaches a loopback port, so loopback is no authentication. `--no-token`
  serves loopback without one (said on start); a non-loopback bind never does.
It also notices a client that drops a tools/call while it runs, and cancels that call's job
(`disconnects`), which the SDK does not do on its own.
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import os
import secrets
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

TOKEN_ENV = "KERNEL_EVAL_TOKEN"
MIN_TOKEN_CHARS = 16
#: the scope key of the guard's tag on each POST (one POST carries one tool call)
CALL_TAG = "kernel_eval.call_tag"


class ServeConfigError(ValueError):
    """The HTTP server cannot start as configured; the message says how to fix it."""


def _address(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address a numeric host spells (127.1, 0x7f.0.0.1, ::1, [::1]), else None."""
    name = name.strip("[]")
    try:
        info = socket.getaddrinfo(name, None, flags=socket.AI_NUMERICHOST)
        ip = ipaddress.ip_address(str(info[0][4][0]).split("%")[0])
    except (OSError, ValueError, IndexError):
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def is_loopback_name(name: str) -> bool:
    """A host name that can only mean this machine: `localhost` or a loopback address."""
    if name.lower().rstrip(".") == "localhost":
        return True
    ip = _address(name)
    return ip is not None and ip.is_loopback


def is_loopback_bind(host: str) -> bool:
    """Whether binding `host` listens on loopback only (0.0.0.0 and :: listen everywhere)."""
    if is_loopback_name(host):
        return True
    if _address(host) is not None:
        return False
    try:  # a name: loopback only if everything it resolves to is
        addresses = {_address(str(info[4][0])) for info in socket.getaddrinfo(host, None)}
    except OSError:
        return False
    return bool(addresses) and all(a is not None and a.is_loopback for a in addresses)


def read_token(token_file: str | None) -> str | None:
    """The bearer token: --auth-token-file first, else $KERNEL_EVAL_TOKEN; None when neither is set."""
    if token_file:
        try:
            token = Path(token_file).expanduser().read_text().strip()
        except OSError as exc:
            raise ServeConfigError(f"--auth-token-file {token_file}: cannot read it ({exc.strerror or exc})") from None
        except UnicodeDecodeError:
            raise ServeConfigError(
                f"--auth-token-file {token_file}: it is not UTF-8 text; put the token in it as text"
            ) from None
        source = f"--auth-token-file {token_file}"
    else:
        token = os.environ.get(TOKEN_ENV, "").strip()
        source = f"${TOKEN_ENV}"
        if not token:
            return None
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise ServeConfigError(
            f"{source}: the token must be at least {MIN_TOKEN_CHARS} characters without spaces; "
            "make one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    return token


GENERATED_TOKEN_FILE = "http-token"


def generated_token(home: Path) -> str:
    """The token in `home`/http-token, made there (0600, created exclusively) when it is not yet: the
    same token across restarts, so a configured client keeps working. ServeConfigError when the file
    is not one only its owner (this user) can read and write."""
    path = home / GENERATED_TOKEN_FILE
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(32) + "\n")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise ServeConfigError(
            f"{path}: cannot read the server's token ({exc.strerror}); remove it to make a new one"
        ) from None
    with os.fdopen(fd) as f:
        info = os.fstat(f.fileno())
        if info.st_uid != os.geteuid() or info.st_mode & 0o077:
            raise ServeConfigError(
                f"{path}: the token file must be yours and mode 0600 (it is {oct(info.st_mode & 0o777)}); "
                "remove it to make a new one"
            )
        token = f.read(4096).strip()
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise ServeConfigError(f"{path}: not a token this server made; remove it to make a new one")
    return token


@dataclass
class HttpSecurity:
    bind_host: str
    token: str | None = None
    allowed_hosts: list[str] = field(default_factory=list)  # "name" or "name:port"
    allowed_origins: list[str] = field(default_factory=list)  # "scheme://name[:port]"
    note: str = ""  # said on start: where a generated token is, or that there is none

    @classmethod
    def configure(
        cls,
        host: str,
        token_file: str | None,
        allowed_hosts: list[str] | None,
        allowed_origins: list[str] | None,
        home: Path | None = None,
        no_token: bool = False,
    ) -> HttpSecurity:
        """`home`: where a token is generated when none is given (None: none is, as before)."""
        token = read_token(token_file)
        if token is None and not is_loopback_bind(host):
            raise ServeConfigError(
                f"refusing to serve on {host!r} without authentication: anyone who can reach it could run code in the "
                f"sandbox. Set a token: export {TOKEN_ENV}="
                "$(python -c 'import secrets; print(secrets.token_urlsafe(32))') "
                "(or --auth-token-file FILE), and give it to clients as the header 'Authorization: Bearer <token>'. "
                "Or bind loopback only (--host 127.0.0.1)."
            )
        note = ""
        if token is None and not no_token and home is not None:
            token = generated_token(home)
            note = (
                f"clients send 'Authorization: Bearer <token>'; the token is in {home / GENERATED_TOKEN_FILE} "
                f"(readable only by you; or set ${TOKEN_ENV})"
            )
        elif token is None:
            note = "no token (--no-token): every local user can call this server and read the .py files under its roots"
        return cls(
            host,
            token,
            [h.lower() for h in allowed_hosts or []],
            [o.lower().rstrip("/") for o in allowed_origins or []],
            note,
        )

    def host_allowed(self, header: str) -> bool:
        try:
            parts = urlsplit("//" + header)
            name, port = parts.hostname, parts.port
        except ValueError:
            return False
        if not name or parts.username is not None or parts.path:
            return False
        if is_loopback_name(name):
            return True
        bind = _address(self.bind_host)
        ip = _address(name)
        if bind is not None and not bind.is_unspecified and ip == bind:
            return True
        return name in self.allowed_hosts or (port is not None and f"{name}:{port}" in self.allowed_hosts)

    def origin_allowed(self, origin: str) -> bool:
        origin = origin.lower().rstrip("/")
        if origin in self.allowed_origins:
            return True
        try:
            parts = urlsplit(origin)
            name = parts.hostname
        except ValueError:
            return False
        return parts.scheme in ("http", "https") and bool(name) and is_loopback_name(name) and not parts.path

    def token_ok(self, header: str | None) -> bool:
        if self.token is None:
            return True
        if not header or not header.lower().startswith("bearer "):
            return False
        return hmac.compare_digest(header[7:].strip().encode(), self.token.encode())


class Disconnects:
    """Which HTTP requests lost their client before their response ended, by the guard's tag.

    The tool handler registers a callback for the tag of the request that carried its call and
    is called at once (or on registration, if the drop came first)."""

    def __init__(self, remember: int = 1024):
        self._lock = threading.Lock()
        self._watchers: dict[str, Callable[[], None]] = {}
        self._dropped: dict[str, None] = {}
        self._remember = remember

    def watch(self, key: str, on_drop: Callable[[], None]) -> Callable[[], None]:
        with self._lock:
            dropped = self._dropped.pop(key, False) is None
            if not dropped:
                self._watchers[key] = on_drop
        if dropped:
            on_drop()
        return lambda: self._forget(key)

    def _forget(self, key: str) -> None:
        with self._lock:
            self._watchers.pop(key, None)

    def drop(self, key: str) -> None:
        with self._lock:
            on_drop = self._watchers.pop(key, None)
            if on_drop is None:
                self._dropped[key] = None
                while len(self._dropped) > self._remember:
                    self._dropped.pop(next(iter(self._dropped)))
        if on_drop is not None:
            on_drop()


disconnects = Disconnects()


async def _refuse(send, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = text.encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware: Host, Origin and token checks, then disconnect tracking for each POST."""

    def __init__(self, app, security: HttpSecurity, drops: Disconnects = disconnects):
        self.app = app
        self.security = security
        self.drops = drops

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers: dict[bytes, bytes] = {}
        for name, value in scope.get("headers", []):
            headers.setdefault(name.lower(), value)
        host = headers.get(b"host", b"").decode("latin-1")
        if not self.security.host_allowed(host):
            return await _refuse(
                send,
                421,
                f"Host {host!r} is not allowed: this server answers to loopback names"
                " and its --allowed-host names (a DNS-rebinding page would name its own domain)",
            )
        origin = headers.get(b"origin")
        if origin is not None and not self.security.origin_allowed(origin.decode("latin-1")):
            return await _refuse(
                send,
                403,
                f"Origin {origin.decode('latin-1')!r} is not allowed; start the server with "
                "--allowed-origin ORIGIN to accept it",
            )
        if not self.security.token_ok(headers.get(b"authorization", b"").decode("latin-1") or None):
            return await _refuse(
                send,
                401,
                "missing or wrong bearer token: send 'Authorization: Bearer <token>'",
                [(b"www-authenticate", b'Bearer realm="kernel-eval"')],
            )
        if scope.get("method") != "POST":
            return await self.app(scope, receive, send)
        await self._tracked(scope, receive, send)

    async def _tracked(self, scope, receive, send) -> None:
        """Tag the request (the tool handler finds the tag in its HTTP request's scope) and report
        a disconnect that comes before the response ended."""
        tag = secrets.token_hex(8)
        scope = {**scope, CALL_TAG: tag}
        done = False

        async def watched_receive():
            message = await receive()
            if message["type"] == "http.disconnect" and not done:
                self.drops.drop(tag)
            return message

        async def watched_send(message):
            nonlocal done
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                done = True
            await send(message)

        await self.app(scope, watched_receive, watched_send)


def call_tag(request) -> str | None:
    """The guard's tag of the HTTP request that carried a tool call (None on stdio)."""
    scope = getattr(request, "scope", None)
    return scope.get(CALL_TAG) if isinstance(scope, dict) else None


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the server starts so a port in use is a clear error (ServeConfigError)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        reason = "is in use (another server?)" if exc.errno == errno.EADDRINUSE else f"cannot be bound ({exc.strerror})"
        raise ServeConfigError(f"{host}:{port} {reason}: pick another with --port, or --host") from None
    sock.set_inheritable(True)
    return sock


def run(server, sock: socket.socket, security: HttpSecurity) -> None:
    """Serve `server` (an MCPServer) at http://host:port/mcp behind the guard, on the socket of bind()."""
    import functools

    import anyio
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    host, port = sock.getsockname()[:2]

    # the guard does the Host / Origin checks for every bind address; the SDK's own would
    # reject the --allowed-host names it does not know
    app = server.streamable_http_app(
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False), host=host
    )
    config = uvicorn.Config(Guard(app, security), host=host, port=port, log_level="warning")
    anyio.run(functools.partial(uvicorn.Server(config).serve, sockets=[sock]))
