"""A TCP proxy on 127.0.0.1 that can cut every connection and refuse new ones for a while: a lost network."""

from __future__ import annotations

import contextlib
import socket
import threading


class CuttingProxy:
    """Forward connections to `target_port`; cut() drops them all and turns new ones away until restore()."""

    def __init__(self, target_port: int):
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.refusing = False
        self.connections: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, name="cutting-proxy", daemon=True).start()

    def _accept(self) -> None:
        """Take connections until closed; while refusing, close each at once (the browser sees it fail)."""
        while True:
            try:
                client, _address = self.listener.accept()
            except OSError:
                return  # closed
            if self.refusing:
                client.close()
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            with self.lock:
                self.connections += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        """Copy one direction until either side ends; then end both."""
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def cut(self) -> None:
        """Drop every open connection and refuse new ones."""
        self.refusing = True
        with self.lock:
            connections, self.connections = self.connections, []
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def restore(self) -> None:
        """Accept connections again."""
        self.refusing = False

    def close(self) -> None:
        """Stop listening and drop everything."""
        self.cut()
        self.listener.close()
