"""An envtest control plane: a real etcd and kube-apiserver started as plain processes.

Kind needs a container engine; many CI runners and laptops have none. controller-runtime's
envtest answers that by running the two binaries directly, found in the directory
``KUBEBUILDER_ASSETS`` names (``setup-envtest use -p path`` prints one). :class:`ControlPlane`
does the same for ``--backend envtest``: etcd and kube-apiserver on free loopback ports, with a
throwaway certificate authority, a serving certificate signed by it, a service-account signing
key and a bearer token, then a kubeconfig naming the CA and the token. No controller-manager and
no scheduler run: the controllers a scenario needs are played by the harness
(:mod:`harness._backends.shared_cluster`), as on any cluster that lacks them.

The flags are envtest's defaults (controller-runtime ``pkg/internal/testing/controlplane/
apiserver.go``, ``defaultArgs``): ``--service-cluster-ip-range=10.0.0.0/24``,
``--allow-privileged=true``, ``--authorization-mode=RBAC``, ``--service-account-issuer`` the
secure URL, ``--service-account-key-file`` and ``--service-account-signing-key-file``, the
secure port bound on loopback. Three differences, chosen on purpose:

* **ServiceAccount admission stays on.** envtest turns it off because nothing makes a namespace's
  ``default`` ServiceAccount without the controller-manager; the harness makes it, so the API
  server admits pods as a real cluster's does (ServiceAccount set, the token volume mounted).
* **No endpoint reconciler** (``--endpoint-reconciler-type=none``). The server advertises
  127.0.0.1, which the ``kubernetes`` Service's Endpoints may not hold (loopback); since v1.37
  kube-apiserver refuses to start with such an address and a reconciler that would write it
  (kubernetes/kubernetes#138102), and before it the reconciler only logged the refusal. Nothing a
  scenario does reads those Endpoints.
* **A static token, not client certificates.** envtest provisions users with client certificates
  signed by its CA; one token in ``--token-auth-file`` (group ``system:masters``) is all the
  harness's clients and a scheduler process need, and kubeconfig readers all understand it.

Key material comes from ``openssl`` (run as a subprocess: the project has no cryptography
dependency); the keys are ECDSA P-256, which takes milliseconds where RSA takes a second on a
busy 2-core machine. Certificates are valid for a week.

Where things go: the PKI, the kubeconfig (it holds the token) and etcd's data in a private
temporary directory removed at :meth:`ControlPlane.stop`; the two logs (``etcd.log``,
``kube-apiserver.log``) in ``logdir``, which the plugin puts in the report directory. The
processes are started with ``PR_SET_PDEATHSIG`` (SIGKILL) on Linux, so a test run killed outright
does not leave an API server behind (its temporary directory, which names its owner in
``owner.pid``, is removed by the next control plane started on the machine); :meth:`~ControlPlane.start` must then run on the thread that lives as
long as the control plane (the main thread: the kernel signals the child when the thread that
forked it exits).
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import yaml

from harness._backends.kind_setup import ClusterSession, ClusterUnavailable

__all__ = [
    "ASSETS_VARIABLE", "BINARIES", "ControlPlane", "EnvtestError", "EnvtestSession", "Pki", "apiserver_args",
    "envtest_unavailable", "etcd_args", "find_assets", "free_port", "generate_pki", "open_envtest_session",
    "write_kubeconfig",
]

ASSETS_VARIABLE = "KUBEBUILDER_ASSETS"
BINARIES = ("etcd", "kube-apiserver")
#: Seconds the binaries may take to answer ready (kube-apiserver's post-start hooks on a busy
#: 2-core machine take 10-30 s; envtest's own default is 60 s).
START_TIMEOUT = 120.0
#: Seconds each process has to exit after SIGTERM before it is killed.
STOP_TIMEOUT = 15.0
SERVICE_CLUSTER_IP_RANGE = "10.0.0.0/24"
USER = "schedharness"
LOG_TAIL_LINES = 15
TMP_PREFIX = "schedharness-envtest-"


class EnvtestError(RuntimeError):
    """The binaries are missing, or the control plane did not start; the message says why."""


def find_assets(directory: str | Path | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """The directory holding ``etcd`` and ``kube-apiserver``: ``directory`` if given, else the one
    ``KUBEBUILDER_ASSETS`` names. :class:`EnvtestError` says what is missing (worded to follow
    "skipped: " or "--backend envtest ")."""
    environ = os.environ if environ is None else environ
    if directory is not None and str(directory).strip():
        where, source = Path(directory).expanduser(), "--envtest-assets"
    elif environ.get(ASSETS_VARIABLE, "").strip():
        where, source = Path(environ[ASSETS_VARIABLE]).expanduser(), ASSETS_VARIABLE
    else:
        raise EnvtestError(f"needs etcd and kube-apiserver binaries: set {ASSETS_VARIABLE} to the directory "
                           "holding them (`setup-envtest use -p path` prints one) or give --envtest-assets DIR")
    if not where.is_dir():
        raise EnvtestError(f"needs etcd and kube-apiserver binaries: {where} ({source}) is not a directory")
    missing = [name for name in BINARIES if not os.access(where / name, os.X_OK) or not (where / name).is_file()]
    if missing:
        raise EnvtestError(f"needs {' and '.join(missing)} in {where} ({source}): not an executable file")
    return where.resolve()


def envtest_unavailable(directory: str | Path | None = None) -> str | None:
    """None when the binaries are there, else the reason (as :func:`find_assets` words it)."""
    try:
        find_assets(directory)
    except EnvtestError as e:
        return str(e)
    return None


#: how many times a binary is started on new ports when another process took the suggested one
PORT_ATTEMPTS = 3


def free_port(host: str = "127.0.0.1") -> int:
    """A port the OS calls free on ``host`` now (as envtest's ``addr.Suggest``: another process
    may take it before the binary binds it, which then fails to start and says so; the control
    plane then starts it again on new ports, :data:`PORT_ATTEMPTS` times at most)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


# ---------------------------------------------------------------------- key material


@dataclass(frozen=True)
class Pki:
    """The files of one control plane's PKI and its token."""

    directory: Path
    token: str

    @property
    def ca_cert(self) -> Path:
        return self.directory / "ca.crt"

    @property
    def serving_cert(self) -> Path:
        return self.directory / "apiserver.crt"

    @property
    def serving_key(self) -> Path:
        return self.directory / "apiserver.key"

    @property
    def sa_key(self) -> Path:
        return self.directory / "sa.key"

    @property
    def sa_pub(self) -> Path:
        return self.directory / "sa.pub"

    @property
    def token_file(self) -> Path:
        return self.directory / "tokens.csv"


def _openssl(argv: Sequence[str], openssl: str) -> None:
    try:
        done = subprocess.run([openssl, *argv], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              check=False, timeout=60)
    except OSError as e:
        raise EnvtestError(f"needs openssl to make the control plane's certificates: {e}") from None
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise EnvtestError(f"openssl {argv[0]} exited with code {done.returncode}: {tail}")


def generate_pki(directory: Path, *, openssl: str = "openssl", hosts: Sequence[str] = ("127.0.0.1",),
                 days: int = 7) -> Pki:
    """A CA, a serving certificate it signs for ``hosts`` (IP addresses) and ``localhost``, a
    service-account key pair and a random token (group ``system:masters``), written to ``directory``
    (private to the user)."""
    directory.mkdir(parents=True, exist_ok=True)
    directory.chmod(0o700)
    pki = Pki(directory, secrets.token_hex(24))
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl(["req", "-x509", *ec, "-keyout", str(directory / "ca.key"), "-out", str(pki.ca_cert),
              "-days", str(days), "-subj", "/CN=schedharness-envtest-ca",
              "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
             openssl)
    csr = directory / "apiserver.csr"
    _openssl(["req", "-new", *ec, "-keyout", str(pki.serving_key), "-out", str(csr), "-subj", "/CN=kube-apiserver"],
             openssl)
    sans = ",".join([*(f"IP:{h}" for h in hosts), "DNS:localhost", "DNS:kubernetes", "DNS:kubernetes.default"])
    extensions = directory / "apiserver.ext"
    extensions.write_text(f"basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                          f"extendedKeyUsage=serverAuth\nsubjectAltName={sans}\n")
    _openssl(["x509", "-req", "-in", str(csr), "-CA", str(pki.ca_cert), "-CAkey", str(directory / "ca.key"),
              "-CAcreateserial", "-out", str(pki.serving_cert), "-days", str(days), "-extfile", str(extensions)],
             openssl)
    _openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(pki.sa_key)], openssl)
    _openssl(["ec", "-in", str(pki.sa_key), "-pubout", "-out", str(pki.sa_pub)], openssl)
    pki.token_file.write_text(f"{pki.token},{USER},{USER}-uid,system:masters\n")
    for path in directory.iterdir():
        path.chmod(0o600)
    return pki


def write_kubeconfig(path: Path, url: str, ca_pem: bytes, token: str) -> Path:
    """A kubeconfig for ``url``: the CA inline, the token as the user's (mode 0600)."""
    config = {
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "envtest", "cluster": {
            "server": url, "certificate-authority-data": base64.b64encode(ca_pem).decode("ascii")}}],
        "users": [{"name": USER, "user": {"token": token}}],
        "contexts": [{"name": "envtest", "context": {"cluster": "envtest", "user": USER}}],
        "current-context": "envtest",
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    path.chmod(0o600)
    return path


# ---------------------------------------------------------------------- flags


def etcd_args(data_dir: Path, client_port: int, peer_port: int, *, no_fsync: bool) -> list[str]:
    """etcd's flags: one member on loopback; ``--unsafe-no-fsync`` (etcd 3.5+) where the binary
    has it, as envtest sets it: the data is thrown away at the end."""
    client, peer = f"http://127.0.0.1:{client_port}", f"http://127.0.0.1:{peer_port}"
    args = [f"--name={USER}", f"--data-dir={data_dir}", f"--listen-client-urls={client}",
            f"--advertise-client-urls={client}", f"--listen-peer-urls={peer}",
            f"--initial-advertise-peer-urls={peer}", f"--initial-cluster={USER}={peer}"]
    if no_fsync:
        args.append("--unsafe-no-fsync")
    return args


def apiserver_args(pki: Pki, cert_dir: Path, port: int, etcd_port: int,
                   feature_gates: Mapping[str, bool] | None = None, runtime_config: str = "") -> list[str]:
    """kube-apiserver's flags (module docstring: envtest's, ServiceAccount admission kept), with
    ``--feature-gates`` and ``--runtime-config`` (as given: ``scheduling.k8s.io/v1beta1=true``)."""
    args = [
        "--advertise-address=127.0.0.1", "--bind-address=127.0.0.1", f"--secure-port={port}",
        f"--etcd-servers=http://127.0.0.1:{etcd_port}", f"--cert-dir={cert_dir}",
        f"--tls-cert-file={pki.serving_cert}", f"--tls-private-key-file={pki.serving_key}",
        f"--token-auth-file={pki.token_file}", "--authorization-mode=RBAC",
        f"--service-cluster-ip-range={SERVICE_CLUSTER_IP_RANGE}", "--allow-privileged=true",
        f"--service-account-issuer=https://127.0.0.1:{port}/",
        f"--service-account-key-file={pki.sa_pub}", f"--service-account-signing-key-file={pki.sa_key}",
        "--profiling=false", "--endpoint-reconciler-type=none",
    ]
    if feature_gates:
        args.append("--feature-gates=" + ",".join(f"{k}={'true' if v else 'false'}" for k, v in sorted(feature_gates.items())))
    if runtime_config:
        args.append(f"--runtime-config={runtime_config}")
    return args


# ---------------------------------------------------------------------- processes


def _die_with_parent() -> None:  # runs in the child between fork and exec
    # SIGKILL, not SIGTERM: etcd gets the same signal at the same moment, and a kube-apiserver
    # shutting down gracefully without its etcd waits for it for good; the data is thrown away
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(errors="replace").rstrip().splitlines()[-lines:]
    except OSError:
        return ""
    return "\n".join(text)


def _terminate(process: subprocess.Popen[bytes], log: IO[bytes]) -> None:
    """SIGTERM, SIGKILL after :data:`STOP_TIMEOUT` s, then close its log."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    log.close()


@dataclass(kw_only=True)
class ControlPlane:
    """etcd and kube-apiserver for one run (or one xdist worker); ``start`` returns the kubeconfig.

    ``assets`` is the directory of the binaries (:func:`find_assets`), ``logdir`` where the logs go.
    """

    assets: Path
    logdir: Path
    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    runtime_config: str = ""
    start_timeout: float = START_TIMEOUT
    openssl: str = "openssl"
    url: str | None = field(default=None, init=False)
    kubeconfig_path: Path | None = field(default=None, init=False)
    _tmp: Path | None = field(default=None, init=False, repr=False)
    _processes: list[tuple[str, subprocess.Popen[bytes], IO[bytes]]] = field(default_factory=list, init=False, repr=False)
    _pki: Pki | None = field(default=None, init=False, repr=False)
    _etcd_port: int = field(default=0, init=False, repr=False)

    @property
    def running(self) -> bool:
        return bool(self._processes)

    def start(self) -> Path:
        """Make the PKI, start etcd then kube-apiserver, wait until both answer ready, write the
        kubeconfig. :class:`EnvtestError` (with the end of the failing log) when one does not
        start; nothing is left running then."""
        if self._processes:
            raise EnvtestError("the envtest control plane is already running")
        self.logdir.mkdir(parents=True, exist_ok=True)
        _sweep_stale(Path(tempfile.gettempdir()))
        self._tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX))
        (self._tmp / "owner.pid").write_text(str(os.getpid()))
        try:
            pki = self._pki = generate_pki(self._tmp / "pki", openssl=self.openssl)
            etcd = str(self.assets / "etcd")
            no_fsync = _has_flag(etcd, "unsafe-no-fsync")
            for attempt in range(PORT_ATTEMPTS):
                etcd_port, peer_port = free_port(), free_port()
                self._spawn("etcd", [etcd, *etcd_args(self._tmp / "etcd", etcd_port, peer_port, no_fsync=no_fsync)],
                            append=attempt > 0)
                if self._ready_or_port_taken("etcd", f"http://127.0.0.1:{etcd_port}/health",
                                             lambda body: b'"health":"true"' in body, attempt):
                    break
            self._etcd_port = etcd_port
            for attempt in range(PORT_ATTEMPTS):
                port = free_port()
                self._spawn("kube-apiserver", [str(self.assets / "kube-apiserver"),
                                               *apiserver_args(pki, self._tmp / "certs", port, etcd_port,
                                                               self.feature_gates, self.runtime_config)],
                            append=attempt > 0)
                url = self.url = f"https://127.0.0.1:{port}"
                if self._ready_or_port_taken("kube-apiserver", f"{url}/readyz",
                                             lambda body: body.strip() == b"ok", attempt):
                    break
            self.kubeconfig_path = write_kubeconfig(self._tmp / "kubeconfig", url, pki.ca_cert.read_bytes(),
                                                    pki.token)
        except BaseException:
            self.stop()
            raise
        return self.kubeconfig_path

    def access(self) -> tuple[str, str, ssl.SSLContext]:
        """How a client reaches the running kube-apiserver: its URL, the bearer token, and a TLS
        context that trusts its CA (what the kubeconfig holds, for clients that take no kubeconfig)."""
        if self._pki is None or self.url is None:
            raise EnvtestError("the envtest control plane is not running")
        return self.url, self._pki.token, ssl.create_default_context(cafile=str(self._pki.ca_cert))

    def restart_apiserver(self, feature_gates: Mapping[str, bool]) -> None:
        """Stop kube-apiserver and start it again with these feature gates, over the same etcd (its
        data kept): a gate flipped on a running cluster, as a control-plane upgrade, downgrade or
        reconfiguration does. :class:`EnvtestError` when it does not come back."""
        if self._pki is None or self._tmp is None or self.url is None:
            raise EnvtestError("the envtest control plane is not running")
        for i, (name, process, log) in enumerate(self._processes):
            if name == "kube-apiserver":
                del self._processes[i]
                _terminate(process, log)
                break
        else:
            raise EnvtestError("the envtest control plane has no kube-apiserver running")
        self.feature_gates = dict(feature_gates)
        port = int(self.url.rsplit(":", 1)[1])
        self._spawn("kube-apiserver", [str(self.assets / "kube-apiserver"), *apiserver_args(
            self._pki, self._tmp / "certs", port, self._etcd_port, self.feature_gates, self.runtime_config)],
            append=True)
        self._wait("kube-apiserver", f"{self.url}/readyz", lambda body: body.strip() == b"ok")

    def _ready_or_port_taken(self, name: str, url: str, ready: Callable[[bytes], bool], attempt: int) -> bool:
        """Wait for ``name`` as :meth:`_wait` does; False when it exited because another process
        took the port :func:`free_port` suggested in between (its log says ``address already in
        use``) and another attempt is left, after removing it (the caller picks new ports)."""
        try:
            self._wait(name, url, ready)
            return True
        except EnvtestError:
            process = next(p for n, p, _ in self._processes if n == name)
            log = self.logdir / f"{name}.log"
            taken = process.poll() is not None and "address already in use" in _tail(log)
            if not taken or attempt + 1 >= PORT_ATTEMPTS:
                raise
            for i, (n, proc, handle) in enumerate(self._processes):
                if n == name:
                    del self._processes[i]
                    _terminate(proc, handle)
                    break
            return False

    def _spawn(self, name: str, argv: list[str], *, append: bool = False) -> None:
        log = open(self.logdir / f"{name}.log", "ab" if append else "wb")
        try:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                       cwd=self._tmp, preexec_fn=_die_with_parent)
        except OSError as e:
            log.close()
            raise EnvtestError(f"cannot start {argv[0]}: {e}") from None
        self._processes.append((name, process, log))

    def _wait(self, name: str, url: str, ready: Callable[[bytes], bool]) -> None:
        """Poll ``url`` until ``ready(body)``; the process exiting or the timeout is an
        :class:`EnvtestError` with the end of its log."""
        process = next(p for n, p, _ in self._processes if n == name)
        context = None
        headers = {}
        if url.startswith("https") and self._pki is not None:
            context = ssl.create_default_context(cafile=str(self._pki.ca_cert))
            headers["Authorization"] = f"Bearer {self._pki.token}"
        deadline = time.monotonic() + self.start_timeout
        log = self.logdir / f"{name}.log"
        while True:
            code = process.poll()
            if code is not None:
                raise EnvtestError(f"{name} exited with code {code} while starting; {log} ends:\n{_tail(log)}")
            try:
                with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5,
                                            context=context) as answer:
                    if ready(answer.read()):
                        return
            except (urllib.error.URLError, OSError, ssl.SSLError):
                pass
            if time.monotonic() >= deadline:
                raise EnvtestError(f"{name} was not ready after {self.start_timeout:g} s ({url}); {log} ends:\n"
                                   f"{_tail(log)}")
            time.sleep(0.2)

    def stop(self) -> None:
        """Stop kube-apiserver then etcd (SIGTERM, SIGKILL after :data:`STOP_TIMEOUT` s), remove the
        temporary directory; the logs stay. Safe to call twice and after a failed start."""
        while self._processes:
            _terminate(*self._processes.pop()[1:])
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self) -> ControlPlane:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _sweep_stale(tmp: Path) -> None:
    """Remove the temporary directories of control planes whose process is gone (a test run
    killed outright takes the binaries with it, not their directory)."""
    for directory in tmp.glob(f"{TMP_PREFIX}*"):
        try:
            owner = int((directory / "owner.pid").read_text())
        except (OSError, ValueError):
            continue  # not one of ours, or still being made
        try:
            os.kill(owner, 0)
        except ProcessLookupError:
            shutil.rmtree(directory, ignore_errors=True)
        except OSError:
            continue  # alive, another user's


def _has_flag(binary: str, flag: str) -> bool:
    """Whether ``binary --help`` mentions ``--flag`` (etcd 3.4 has no ``--unsafe-no-fsync``)."""
    try:
        done = subprocess.run([binary, "--help"], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return f"--{flag}" in done.stdout + done.stderr


# ---------------------------------------------------------------------- the run's session


@dataclass
class EnvtestSession(ClusterSession):
    """The control plane of one run (or xdist worker), as the plugin's other cluster sessions."""

    control_plane: ControlPlane | None = None

    def close(self) -> None:
        if self.control_plane is not None:
            control_plane, self.control_plane = self.control_plane, None
            control_plane.stop()


def open_envtest_session(workdir: Path, *, assets: str | Path | None = None,
                         feature_gates: Mapping[str, bool] | None = None,
                         runtime_config: Mapping[str, str] | None = None) -> EnvtestSession:
    """Start a control plane with its logs in ``workdir`` (kube-apiserver's ``--feature-gates`` and
    ``--runtime-config`` as given); :class:`ClusterUnavailable` with the reason when the binaries
    are missing or it does not start."""
    flag = ",".join(f"{key}={value}" for key, value in (runtime_config or {}).items())
    try:
        control_plane = ControlPlane(assets=find_assets(assets), logdir=workdir, feature_gates=dict(feature_gates or {}),
                                     runtime_config=flag)
        kubeconfig = control_plane.start()
    except EnvtestError as e:
        why = str(e)
        raise ClusterUnavailable(f"--backend envtest {why}" if why.startswith("needs ") else
                                 f"--backend envtest: the control plane did not start: {why}") from None
    return EnvtestSession("envtest", kubeconfig, apiserver_feature_gates=dict(feature_gates or {}),
                          runtime_config=dict(runtime_config or {}), control_plane=control_plane)
