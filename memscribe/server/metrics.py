"""Request counts and latency percentiles per route, kept in memory. Routes are labelled by their
template (``/v1/memories/{memory_id}``), never by the concrete path, so no id or content is recorded."""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RequestMetrics", "percentile"]


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted list (0.0 when empty)."""
    if not sorted_values:
        return 0.0
    rank = max(0, min(len(sorted_values) - 1, math.ceil(q / 100 * len(sorted_values)) - 1))
    return sorted_values[rank]


@dataclass
class _Route:
    count: int = 0
    errors: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    recent_ms: deque[float] = field(default_factory=deque)


class RequestMetrics:
    """Thread-safe counters; ``window`` recent latencies per route feed the percentiles."""

    def __init__(self, window: int = 1024) -> None:
        self.window = window
        self.started = time.time()
        self._lock = threading.Lock()
        self._routes: dict[str, _Route] = {}

    def record(self, route: str, status: int, elapsed_ms: float) -> None:
        with self._lock:
            entry = self._routes.get(route)
            if entry is None:
                entry = self._routes[route] = _Route(recent_ms=deque(maxlen=self.window))
            entry.count += 1
            entry.errors += status >= 500
            entry.statuses[status] = entry.statuses.get(status, 0) + 1
            entry.recent_ms.append(elapsed_ms)

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            routes = {
                name: (r.count, r.errors, dict(r.statuses), sorted(r.recent_ms)) for name, r in self._routes.items()
            }
        return {
            "uptime_s": round(time.time() - self.started, 3),
            "routes": {
                name: {
                    "count": count,
                    "server_errors": errors,
                    "statuses": {str(k): v for k, v in sorted(statuses.items())},
                    "latency_ms": {f"p{q}": round(percentile(recent, q), 3) for q in (50, 95, 99)},
                }
                for name, (count, errors, statuses, recent) in sorted(routes.items())
            },
        }
