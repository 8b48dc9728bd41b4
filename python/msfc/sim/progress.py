"""Progress display: a bar on a terminal, occasional plain lines otherwise."""

from __future__ import annotations

import sys
import time


class Progress:
    """``update(done)`` with an absolute position; ``total`` may change once known."""

    def __init__(
        self,
        total: float | None,
        desc: str,
        unit: str = "",
        stream=None,
        enabled: bool = True,
        plain_interval: float = 10.0,
        fmt: str = "{:g}",
    ):
        self.stream = stream or sys.stderr
        self.desc, self.unit, self.fmt = desc, unit, fmt
        self.total = total
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.bar = None
        self.done = 0
        self.plain_interval = plain_interval
        self._last_plain = 0.0
        if enabled and self.tty:
            from tqdm import tqdm

            self.bar = tqdm(
                total=total,
                desc=desc,
                unit=unit,
                file=self.stream,
                leave=True,
                dynamic_ncols=True,
                bar_format=None,
            )

    def update(self, done: float, total: float | None = None) -> None:
        if not self.enabled:
            return
        if total is not None and total != self.total:
            self.total = total
            if self.bar is not None:
                self.bar.total = total
        if self.bar is not None:
            self.bar.update(done - self.done)
            self.done = done
            return
        self.done = done
        now = time.monotonic()
        if now - self._last_plain >= self.plain_interval or (self.total and done >= self.total):
            self._last_plain = now
            tot = f"/{self.fmt.format(self.total)}" if self.total else ""
            print(
                f"{self.desc}: {self.fmt.format(done)}{tot} {self.unit}".rstrip(),
                file=self.stream,
                flush=True,
            )

    def write(self, msg: str) -> None:
        """A line of text that does not break the bar."""
        if self.bar is not None:
            self.bar.write(msg, file=self.stream)
        else:
            print(msg, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
