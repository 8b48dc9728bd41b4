"""User-facing errors: the message names the problem and the fix; no traceback is shown."""


class UserError(Exception):
    """A problem the user can fix (bad option, missing build, ...). Exit code 2 by default."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


class SimulationError(Exception):
    """A scenario program failed while running."""

    def __init__(self, message: str, returncode: int, stderr_tail: str, argv: list[str]):
        super().__init__(message)
        self.returncode = returncode
        self.stderr_tail = stderr_tail
        self.argv = argv
