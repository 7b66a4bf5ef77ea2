"""What caliber.measure raises. Each class is also the builtin a caller would expect: a refused
contract or a wrong keyword is a ValueError, a device failure or an integrity failure a
RuntimeError."""


class CaliberError(Exception):
    """Base of the errors caliber raises on purpose."""


class ContractError(CaliberError, ValueError):
    """The contract cannot be measured as asked (the core's why_invalid). ``fields`` names the
    keywords to change: those whose default would have made the contract valid."""

    def __init__(self, message, fields=()):
        super().__init__(message)
        self.fields = tuple(fields)


class UsageError(CaliberError, ValueError):
    """A keyword with a wrong value or type; ``fields`` names it."""

    def __init__(self, message, fields=()):
        super().__init__(message)
        self.fields = tuple(fields)


class DeviceError(CaliberError, RuntimeError):
    """The device (or the host) failed while measuring; no number was produced."""


class IntegrityError(CaliberError, RuntimeError):
    """The number must not be used (docs/integrity.md): the contract cannot time this call
    truthfully (no result), or a check failed after timing (``result`` holds the measurement and
    ``result.integrity`` says which check failed and what it found)."""

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = result
