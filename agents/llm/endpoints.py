"""Which network addresses a user-given LLM endpoint may reach.

A user's base URL is untrusted: without a check the server would POST to its own loopback,
the private network or a cloud metadata address on the user's behalf (server-side request
forgery).  Two checks, one rule:

* :func:`check_endpoint_url` when the URL is saved: http(s) only, no credentials in the URL,
  and the host must not resolve to an internal address;
* :class:`GuardedNetworkBackend` on every connection the SDK opens (redirects included): the
  host is resolved once, refused when *any* address is internal, and the connection goes to
  the address that was checked, so a DNS answer that changes in between (rebinding) gains
  nothing.

An administrator's allow-list (``HEDIT_LLM_ALLOWED_HOSTS``: host names, ``.suffix`` domains,
addresses or CIDR networks) lets a lab reach its own Ollama or vLLM on its own network.
The server's own endpoint (from the environment) is trusted and never goes through here.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import socket
import ssl
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio

try:  # openai >= 3 ships on the httpx2 fork; older releases use httpx itself
    import httpcore2 as httpcore
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the installed openai
    import httpcore  # type: ignore[no-redef]
    import httpx  # type: ignore[no-redef]

logger = logging.getLogger(__name__)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
ALLOWED_SCHEMES = ("http", "https")


class UnsafeEndpoint(ValueError):
    """A user-given endpoint the server will not connect to; the message is for the user."""


class BlockedAddress(httpcore.ConnectError):
    """A connection refused before it was opened: the host resolves to an internal address."""


@dataclass(frozen=True)
class AllowList:
    """Hosts an administrator lets user endpoints reach although they are internal."""

    names: frozenset[str] = frozenset()
    suffixes: tuple[str, ...] = ()
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()

    @classmethod
    def parse(cls, entries: Iterable[str] | str | None) -> AllowList:
        if isinstance(entries, str):
            entries = entries.split(",")
        names: set[str] = set()
        suffixes: list[str] = []
        networks: list[Any] = []
        for raw in entries or ():
            entry = raw.strip().lower().strip("[]")
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
                continue
            except ValueError:
                pass
            if entry.startswith("."):
                suffixes.append(entry)
            else:
                names.add(entry.rstrip("."))
        return cls(frozenset(names), tuple(suffixes), tuple(networks))

    def allows_name(self, host: str) -> bool:
        host = host.lower().rstrip(".")
        return host in self.names or any(host.endswith(s) or host == s[1:] for s in self.suffixes)

    def allows_address(self, address: IPAddress) -> bool:
        return any(address in net for net in self.networks if net.version == address.version)


def _unwrap(address: IPAddress) -> IPAddress:
    """The IPv4 address inside an IPv4-mapped, 6to4 or NAT64 IPv6 address, else the address."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address.sixtofour is not None:
            return address.sixtofour
        if address in ipaddress.ip_network("64:ff9b::/96"):
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def is_internal(address: IPAddress | str) -> bool:
    """True for loopback, private, link-local, reserved, multicast, unspecified or any non-global address."""
    ip = _unwrap(ipaddress.ip_address(address) if isinstance(address, str) else address)
    return (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved or ip.is_multicast
            or ip.is_unspecified or not ip.is_global)


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return None


def refused_addresses(host: str, addresses: Iterable[IPAddress], allow: AllowList) -> list[IPAddress]:
    """The addresses of *host* a user endpoint may not reach (empty when all are fine)."""
    if allow.allows_name(host):
        return []
    return [a for a in addresses if is_internal(a) and not allow.allows_address(_unwrap(a))
            and not allow.allows_address(a)]


def _addresses(infos: Iterable[Any]) -> list[IPAddress]:
    seen: list[IPAddress] = []
    for info in infos:
        address = _literal(str(info[4][0]))
        if address is not None and address not in seen:
            seen.append(address)
    return seen


def check_endpoint_url(url: str, allow: AllowList) -> None:
    """Refuse a user's base URL the server must not call; raises :class:`UnsafeEndpoint`.

    A host that does not resolve now is accepted: every connection is checked again when made.
    """
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ALLOWED_SCHEMES:
        raise UnsafeEndpoint("The base URL must start with http:// or https://.")
    if parts.username is not None or parts.password is not None:
        raise UnsafeEndpoint("The base URL must not contain a user name or password; put the key in the key field.")
    host = parts.hostname or ""
    if not host:
        raise UnsafeEndpoint("The base URL has no host name.")
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError as exc:
        raise UnsafeEndpoint("The base URL's port is not a number from 0 to 65535.") from exc
    literal = _literal(host)
    if literal is not None:
        addresses = [literal]
    else:
        try:
            addresses = _addresses(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError):
            logger.info("user endpoint host %s does not resolve now; checked again on connection", host)
            return
    if refused_addresses(host, addresses, allow):
        raise UnsafeEndpoint("The base URL points to a local or private network address, which user endpoints "
                             "may not use. Ask an administrator to allow it (HEDIT_LLM_ALLOWED_HOSTS).")


class GuardedNetworkBackend(httpcore.AsyncNetworkBackend):
    """Opens TCP connections only to addresses a user endpoint may reach (see the module docstring).

    TLS still verifies the certificate against the host name: the connection pool passes the
    origin's name as the server name, whichever address the socket was opened to.
    """

    def __init__(self, allow: AllowList, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.allow = allow
        self.inner = inner or httpcore.AnyIOBackend()

    async def _resolve(self, host: str, port: int, timeout: float | None) -> list[IPAddress]:
        literal = _literal(host)
        if literal is not None:
            return [literal]
        try:
            with anyio.fail_after(timeout):
                infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"resolving {host} timed out") from exc
        except (OSError, UnicodeError) as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}") from exc
        return _addresses(infos)

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        if self.allow.allows_name(host):
            return await self.inner.connect_tcp(host, port, timeout=timeout, local_address=local_address,
                                                socket_options=socket_options)
        addresses = await self._resolve(host, port, timeout)
        refused = refused_addresses(host, addresses, self.allow)
        if refused or not addresses:
            logger.warning("refused a user LLM endpoint connection to %s:%s (resolves to %s)", host, port,
                           ", ".join(map(str, refused)) or "nothing")
            raise BlockedAddress(f"{host} is not a reachable public address")
        last: Exception | None = None
        for address in addresses:
            try:
                return await self.inner.connect_tcp(str(address), port, timeout=timeout,
                                                    local_address=local_address, socket_options=socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        assert last is not None
        raise last

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        raise BlockedAddress("user endpoints cannot use Unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """One TLS context per process: building one loads the CA bundle (~70 ms of CPU), once per run before."""
    return httpx.create_ssl_context(trust_env=False)


class GuardedTransport(httpx.AsyncHTTPTransport):
    """An HTTP transport whose every connection goes through :class:`GuardedNetworkBackend`.

    No proxies from the environment (a proxy would connect on our behalf, past the check).
    """

    def __init__(self, allow: AllowList, *, max_connections: int = 10) -> None:
        super().__init__(trust_env=False, verify=shared_ssl_context())
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=shared_ssl_context(), max_connections=max_connections,
            max_keepalive_connections=max_connections, keepalive_expiry=5.0,
            network_backend=GuardedNetworkBackend(allow))


def guarded_http_client(allow: AllowList, timeout: float, *,
                        event_hooks: Mapping[str, list[Any]] | None = None) -> httpx.AsyncClient:
    """The HTTP client for a user's endpoint: guarded connections, no redirects, no environment proxies
    (*event_hooks*: the reply's bounds, :func:`agents.llm.bounds.bounded_event_hooks`)."""
    return httpx.AsyncClient(transport=GuardedTransport(allow), timeout=timeout, follow_redirects=False,
                             trust_env=False, event_hooks=dict(event_hooks or {}))
