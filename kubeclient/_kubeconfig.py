"""A kubeconfig read the way kubectl reads the parts of it a JSON client needs.

What is supported and what is not is listed on :func:`load_kubeconfig`; what it gives is what a
session needs: the server's URL, the headers that authenticate (a bearer token or basic auth),
and the TLS setting (a context with the cluster's CA and the client's certificate, or ``False``
for ``insecure-skip-tls-verify``). A client certificate given inline (``-data``) is written to a
temporary file, as ``ssl`` loads a chain only from files.
"""

from __future__ import annotations

import base64
import ssl
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

__all__ = ["load_kubeconfig"]

Obj = dict[str, Any]


def load_kubeconfig(source: str | Path | Mapping[str, Any]) -> tuple[str, dict[str, str], ssl.SSLContext | bool]:
    """The server URL, headers and TLS setting of the current context.

    Supported: ``server``, ``certificate-authority(-data)``, ``insecure-skip-tls-verify``, a bearer
    ``token`` or ``tokenFile``, ``client-certificate(-data)``/``client-key(-data)``, and basic
    ``username``/``password``. Exec and auth-provider plugins are not.
    """
    if isinstance(source, Mapping):
        config: Obj = dict(source)
        base = Path.cwd()
    else:
        path = Path(source)
        config = yaml.safe_load(path.read_text()) or {}
        base = path.resolve().parent
    contexts = {c["name"]: c.get("context") or {} for c in config.get("contexts") or []}
    clusters = {c["name"]: c.get("cluster") or {} for c in config.get("clusters") or []}
    users = {u["name"]: u.get("user") or {} for u in config.get("users") or []}
    current = config.get("current-context") or next(iter(contexts), "")
    context = contexts.get(current, {})
    cluster = clusters.get(context.get("cluster", ""), {}) or next(iter(clusters.values()), {})
    user = users.get(context.get("user", ""), {})
    server = str(cluster.get("server", "")).rstrip("/")
    if not server:
        raise ValueError(f"kubeconfig: context {current!r} has no cluster server")
    headers: dict[str, str] = {}
    token = user.get("token")
    if not token and user.get("tokenFile"):
        token = (base / user["tokenFile"]).read_text().strip()
    if token:
        headers["Authorization"] = f"Bearer {token}"
    elif user.get("username"):
        raw = f"{user['username']}:{user.get('password', '')}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(raw).decode()
    tls: ssl.SSLContext | bool = True
    if server.startswith("https://"):
        if cluster.get("insecure-skip-tls-verify"):
            tls = False
        else:
            ctx = ssl.create_default_context()
            if cluster.get("certificate-authority-data"):
                ctx.load_verify_locations(cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
            elif cluster.get("certificate-authority"):
                ctx.load_verify_locations(cafile=str(base / cluster["certificate-authority"]))
            tls = ctx
        cert, key = _client_cert(user, base)
        if cert:
            if not isinstance(tls, ssl.SSLContext):
                tls = ssl.create_default_context()
                tls.check_hostname = False
                tls.verify_mode = ssl.CERT_NONE
            tls.load_cert_chain(cert, key)
    return server, headers, tls


def _client_cert(user: Obj, base: Path) -> tuple[str | None, str | None]:
    def materialize(data_key: str, file_key: str) -> str | None:
        if user.get(data_key):
            f = tempfile.NamedTemporaryFile("wb", suffix=".pem", delete=False)
            f.write(base64.b64decode(user[data_key]))
            f.close()
            return f.name
        if user.get(file_key):
            return str(base / user[file_key])
        return None

    return materialize("client-certificate-data", "client-certificate"), materialize("client-key-data", "client-key")
