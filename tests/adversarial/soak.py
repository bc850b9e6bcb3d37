"""A multi-writer soak on one store: two servers (writers lite and raw), HTTP clients (native wait=true and
wait=false, mem0 infer=false), CLI adds and an SDK writer process, with kill -9 at random points. Every
acknowledged write is counted and, once a final recovery pass ran, looked for in the store."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from memscribe import Memory

SDK_WRITER = """
import sys, uuid
from memscribe import Memory
m = Memory(sys.argv[1], writer="raw", embedder="hash")
i = 0
while True:
    token = uuid.uuid4().hex
    m.add(f"soak note {token}", user_id=f"u{i % 3}", wait=i % 2 == 0)
    print(token, flush=True)
    i += 1
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Round:
    home: Path
    seed: int
    seconds: float = 10.0
    acked: set[str] = field(default_factory=set)
    kills: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def db(self) -> Path:
        return self.home / "memscribe.db"

    def _base(self, writer: str) -> list[str]:
        return [sys.executable, "-m", "memscribe", "--home", str(self.home), "--embedder", "hash", "--writer", writer]

    def serve(self, writer: str, port: int) -> subprocess.Popen[bytes]:
        cmd = [*self._base(writer), "serve", "--no-auth", "--port", str(port), "--log-level", "error"]
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def ack(self, token: str) -> None:
        with self.lock:
            self.acked.add(token)


def _wait_up(port: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"server on {port} did not start")


def _http_writer(r: Round, ports: dict[str, int], stop: threading.Event, rng: random.Random) -> None:
    with httpx.Client(timeout=10) as client:
        while not stop.is_set():
            token, user = uuid.uuid4().hex, f"u{rng.randrange(3)}"
            kind = rng.choice(["native-wait", "native-nowait", "mem0-raw", "lite"])
            messages = [{"role": "user", "content": f"soak note {token}"}]
            try:
                if kind == "mem0-raw":  # the lite server's raw Memory, next to its lite one
                    url = f"http://127.0.0.1:{ports['lite']}/v1/memories/"
                    resp = client.post(url, json={"messages": messages, "user_id": user, "infer": False})
                elif kind == "lite":  # keeps the lite server's own Memory (and its recovery) busy; not counted
                    url = f"http://127.0.0.1:{ports['lite']}/v1/memories"
                    body = {"messages": [{"role": "user", "content": f"I moved to city {token[:6]}."}], "user_id": user}
                    client.post(url, json={**body, "wait": rng.random() < 0.5})
                    continue
                else:
                    url = f"http://127.0.0.1:{ports['raw']}/v1/memories"
                    body = {"messages": messages, "user_id": user, "wait": kind == "native-wait"}
                    resp = client.post(url, json=body)
            except httpx.HTTPError:
                time.sleep(0.05)  # the server was killed: this write was never acknowledged
                continue
            if resp.status_code == 200:
                r.ack(token)


def _cli_writer(r: Round, stop: threading.Event, rng: random.Random) -> None:
    while not stop.is_set():
        token = uuid.uuid4().hex
        cmd = [*r._base("raw"), "add", "-u", f"u{rng.randrange(3)}", f"soak note {token}"]
        if rng.random() < 0.5:
            cmd.append("--no-wait")
        proc = subprocess.run(cmd, capture_output=True, timeout=60, check=False)
        if proc.returncode == 0:
            r.ack(token)


def _sdk_writer(r: Round) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", SDK_WRITER, str(r.db)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)  # fmt: skip


def _drain(r: Round, proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        token = line.decode().strip()
        if len(token) == 32:
            r.ack(token)


def run_round(r: Round) -> dict[str, int]:
    """One round; returns acknowledged, missing (acknowledged but not stored), pending left and kills."""
    rng = random.Random(r.seed)
    r.home.mkdir(parents=True, exist_ok=True)
    Memory(r.db, writer="raw", embedder="hash").add("warm up", user_id="warm")  # create the store once
    ports = {"lite": free_port(), "raw": free_port()}
    servers = {name: r.serve(name, port) for name, port in ports.items()}
    deadline = time.monotonic() + 60
    for port in ports.values():
        _wait_up(port, deadline)
    stop = threading.Event()
    sdk = _sdk_writer(r)
    threads = [threading.Thread(target=_drain, args=(r, sdk))]
    threads += [threading.Thread(target=_http_writer, args=(r, ports, stop, random.Random(r.seed * 7 + i)))
                for i in range(3)]  # fmt: skip
    threads.append(threading.Thread(target=_cli_writer, args=(r, stop, random.Random(r.seed * 11))))
    for t in threads:
        t.start()
    end = time.monotonic() + r.seconds
    time.sleep(r.seconds / 3)  # let every writer get going before the first kill
    while time.monotonic() < end:
        time.sleep(rng.uniform(0.5, r.seconds / 3))
        victim = rng.choice(["lite", "raw", "sdk"])
        if victim == "sdk":
            sdk.send_signal(signal.SIGKILL)
            sdk.wait()
            sdk = _sdk_writer(r)
            drain = threading.Thread(target=_drain, args=(r, sdk))
            drain.start()
            threads.append(drain)
        elif servers[victim].poll() is None:  # a killed server stays down: its pending work is recovered later
            servers[victim].send_signal(signal.SIGKILL)
            servers[victim].wait()
        else:
            continue
        r.kills += 1
    stop.set()
    for proc in (*servers.values(), sdk):
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    for t in threads:
        t.join(90)
    return verify(r)


def verify(r: Round) -> dict[str, int]:
    """After the crash: one recovery pass with a default process, then every acknowledged token looked up."""
    with Memory(r.db, writer="lite", embedder="hash") as m:
        m.process_pending()
        texts = " ".join(
            line for user in ("u0", "u1", "u2") for line in m.export(user) or [] if '"kind": "memory"' in line
        )
        pending = m.stats()["pending_episodes"]
    missing = {token for token in r.acked if token not in texts}
    return {"acked": len(r.acked), "missing": len(missing), "pending": pending, "kills": r.kills}


if __name__ == "__main__":  # python -m tests.adversarial.soak DIR ROUNDS
    base, rounds = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 20
    total = {"acked": 0, "missing": 0, "pending": 0, "kills": 0}
    for i in range(rounds):
        result = run_round(Round(base / f"round-{i}", seed=i))
        print(f"round {i}: {result}", flush=True)
        total = {k: total[k] + result[k] for k in total}
    print(f"soak: {rounds} rounds {total}")
    os._exit(0 if total["missing"] == 0 and total["pending"] == 0 else 1)
