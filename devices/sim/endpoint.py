"""Where a simulator's bytes go: a pseudo-terminal (Linux/macOS) or a TCP socket (Windows).

Ptys need ``termios``, which only POSIX has: it is imported in a POSIX branch, and where it is
missing (Windows) or the pty backend is switched off (environment ``FIELDAPP_SIM_PTY=0``, the
path a Windows laptop takes, for tests on Linux) :func:`pty_available` is False and
:func:`devices.sim.base.make_endpoint` serves ``socket://127.0.0.1:<port>`` instead.

:class:`PtyEndpoint` creates a pty and, optionally, a stable symlink to its slave side; the app
opens that path exactly like ``/dev/ttyUSB0``. :meth:`PtyEndpoint.unplug` closes the pty and
removes the link (the device is gone); :meth:`PtyEndpoint.replug` creates a new pty and points
the same link at it, as a USB adapter reappearing would.

:class:`TcpEndpoint` listens on ``127.0.0.1`` and serves every connected client; the app opens
``socket://127.0.0.1:<port>``.

Bytes written while nobody reads are lost, as on a real serial line: when the pty's buffer is
full the stale input is flushed rather than blocking the simulator.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import socket
import threading
import time
from pathlib import Path

try:  # POSIX only: ptys (Windows has neither termios nor os.openpty)
    import termios
except ImportError:  # Windows
    termios = None  # type: ignore[assignment]

PTY_ENV = "FIELDAPP_SIM_PTY"
"""Environment variable: ``0`` switches the pty backend off (simulators serve TCP instead)."""


def pty_available() -> bool:
    """True when simulators can make pseudo-terminals here: ``termios`` and ``os.openpty``
    exist (POSIX) and :data:`PTY_ENV` is not ``0``."""
    if os.environ.get(PTY_ENV, "").strip() == "0":
        return False
    return termios is not None and hasattr(os, "openpty")


class Endpoint:
    """Base: ``url``, ``write``, ``read``, ``unplug``, ``replug``, ``close``."""

    @property
    def url(self) -> str:  # pragma: no cover - abstract
        """What the app opens (a pty path or link, or ``socket://host:port``)."""
        raise NotImplementedError

    def write(self, data: bytes, wait_s: float = 0.2, lossless: bool = False) -> int:  # pragma: no cover
        raise NotImplementedError

    def read(self, timeout_s: float) -> bytes:  # pragma: no cover - abstract
        raise NotImplementedError

    def unplug(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def plugged(self) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def _plug(self) -> None:  # pragma: no cover - abstract
        """Open the port (a new pty, a listening socket)."""
        raise NotImplementedError

    def replug(self) -> None:
        """Plug the port in again (no-op while plugged)."""
        if not self.plugged:
            self._plug()

    def close(self) -> None:
        """Unplug for good. Idempotent."""
        self.unplug()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"


class PtyEndpoint(Endpoint):
    """A pseudo-terminal whose slave path the app opens.

    Parameters
    ----------
    link : path, optional
        Stable symlink to the slave (e.g. ``/tmp/fieldapp-sim/gnss``); re-pointed on replug.
        Without it, :attr:`url` is the slave path itself (``/dev/pts/N``), which changes on
        replug.
    parity : str
        ``"N"`` or ``"E"``/``"O"``: set on the slave's termios for fidelity (a pty does not
        enforce parity).

    Raises
    ------
    OSError
        The pty cannot be created or the link cannot be made; no ptys on this system.
    """

    def __init__(self, link: str | Path | None = None, parity: str = "N") -> None:
        if termios is None or not hasattr(os, "openpty"):
            raise OSError(errno.ENOSYS, "no pseudo-terminals on this system (Windows): "
                          "serve the simulator on TCP (socket://) instead")
        self.link = Path(link) if link else None
        self.parity = parity.upper()
        self._lock = threading.Lock()
        self._master: int | None = None
        self._slave: int | None = None
        self._slave_path = ""
        self.generation = 0
        self._open()

    def _open(self) -> None:
        master, slave = os.openpty()
        try:
            attrs = termios.tcgetattr(slave)
            attrs[0] = 0  # iflag: no CR/NL translation, no flow control
            attrs[1] = 0  # oflag: no post-processing
            cflag = attrs[2] & ~(termios.CSIZE | termios.PARENB | termios.PARODD)
            cflag |= termios.CS8 | termios.CREAD | termios.CLOCAL
            if self.parity in ("E", "O"):
                cflag |= termios.PARENB | (termios.PARODD if self.parity == "O" else 0)
            attrs[2] = cflag
            attrs[3] = 0  # lflag: raw, no echo
            termios.tcsetattr(slave, termios.TCSANOW, attrs)
            os.set_blocking(master, False)
            path = os.ttyname(slave)
            if self.link is not None:
                self.link.parent.mkdir(parents=True, exist_ok=True)
                tmp = self.link.with_name(f".{self.link.name}.{os.getpid()}.tmp")
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
                os.symlink(path, tmp)
                os.replace(tmp, self.link)
        except BaseException:
            os.close(master)
            os.close(slave)
            raise
        with self._lock:
            self._master, self._slave, self._slave_path = master, slave, path
            self.generation += 1

    @property
    def slave_path(self) -> str:
        """The current ``/dev/pts/N`` path ('' while unplugged)."""
        return self._slave_path

    @property
    def url(self) -> str:
        """What the app opens: the link when there is one, else the slave path."""
        return str(self.link) if self.link is not None else self._slave_path

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def write(self, data: bytes, wait_s: float = 0.2, lossless: bool = False) -> int:
        """Write ``data`` to the master side; returns bytes written (0 while unplugged).

        When the pty buffer is full, wait up to ``wait_s`` for the app to read; if it still
        does not, the stale bytes are flushed (nobody is listening) and the write retried --
        or, with ``lossless``, the count written so far is returned.
        """
        view = memoryview(data)
        written = 0
        deadline = time.monotonic() + wait_s
        while written < len(data):
            with self._lock:
                master, slave = self._master, self._slave
                if master is None:
                    return written
                try:
                    written += os.write(master, view[written:])
                    continue
                except BlockingIOError:
                    pass
                except OSError as exc:
                    if exc.errno in (errno.EIO, errno.EBADF):
                        return written
                    raise
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if lossless:
                    return written
                with self._lock:
                    if self._slave is slave and slave is not None:
                        termios.tcflush(slave, termios.TCIFLUSH)
                deadline = time.monotonic() + wait_s
                continue
            with contextlib.suppress(OSError, ValueError):
                select.select([], [master], [], min(remaining, 0.05))
        return written

    def read(self, timeout_s: float) -> bytes:
        """Bytes the app wrote to the port, waiting up to ``timeout_s`` (b'' when none)."""
        master = self._master
        if master is None:
            time.sleep(timeout_s)
            return b""
        try:
            ready, _, _ = select.select([master], [], [], timeout_s)
        except (OSError, ValueError):
            return b""
        if not ready:
            return b""
        with self._lock:
            if self._master != master:
                return b""
            try:
                return os.read(master, 4096)
            except (BlockingIOError, OSError):
                return b""

    def _close_fds(self) -> None:
        with self._lock:
            fds = (self._master, self._slave)
            self._master = self._slave = None
            self._slave_path = ""
        for fd in fds:
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def unplug(self) -> None:
        """Close the pty (the app's reads fail with EIO) and remove the link -- only while it
        still points at this pty (another simulator may have taken the name since)."""
        slave_path = self._slave_path
        self._close_fds()
        if self.link is not None and slave_path:
            with contextlib.suppress(OSError):
                if os.readlink(self.link) == slave_path:
                    self.link.unlink()

    def _plug(self) -> None:
        """A new pty behind the same link."""
        self._open()


class TcpEndpoint(Endpoint):
    """A TCP server on ``host`` (default 127.0.0.1) serving every connected client.

    Parameters
    ----------
    host : str
    port : int
        0 picks a free port; :attr:`url` tells which.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self._port = port
        self._lock = threading.Lock()
        self._server: socket.socket | None = None
        self._clients: list[socket.socket] = []
        self._listen()

    def _listen(self) -> None:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind((self.host, self._port))
        server.listen(4)
        server.setblocking(False)
        self._port = server.getsockname()[1]
        with self._lock:
            self._server = server

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        return f"socket://{self.host}:{self._port}"

    def _accept(self) -> None:
        server = self._server
        if server is None:
            return
        while True:
            try:
                client, _ = server.accept()
            except (BlockingIOError, OSError):
                return
            client.setblocking(False)
            with self._lock:
                self._clients.append(client)

    def write(self, data: bytes, wait_s: float = 0.2, lossless: bool = False) -> int:
        """Send to every client; a client that cannot keep up loses the bytes."""
        self._accept()
        with self._lock:
            clients = list(self._clients)
        for client in clients:
            try:
                client.sendall(data)
            except BlockingIOError:
                continue  # client not reading: these bytes are lost, as on a serial line
            except OSError:
                with self._lock, contextlib.suppress(ValueError):
                    self._clients.remove(client)
                with contextlib.suppress(OSError):
                    client.close()
        return len(data) if clients else 0

    def read(self, timeout_s: float) -> bytes:
        """Bytes any client sent (accepting new clients meanwhile)."""
        with self._lock:
            socks = [s for s in [self._server, *self._clients] if s is not None]
        if not socks:
            time.sleep(timeout_s)
            return b""
        try:
            ready, _, _ = select.select(socks, [], [], timeout_s)
        except (OSError, ValueError):
            return b""
        out = b""
        for sock in ready:
            if sock is self._server:
                self._accept()
                continue
            try:
                chunk = sock.recv(4096)
            except (BlockingIOError, OSError):
                chunk = b""
            if not chunk:
                with self._lock, contextlib.suppress(ValueError):
                    self._clients.remove(sock)
                with contextlib.suppress(OSError):
                    sock.close()
            out += chunk
        return out

    def unplug(self) -> None:
        """Drop every client and stop listening."""
        with self._lock:
            socks = [s for s in [self._server, *self._clients] if s is not None]
            self._server, self._clients = None, []
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.close()

    @property
    def plugged(self) -> bool:
        return self._server is not None

    def _plug(self) -> None:
        """Listen again on the same port."""
        self._listen()
