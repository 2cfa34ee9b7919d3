"""One error tree for the whole product.

    ExplainerError                 everything we raise on purpose; str() is one line for a user
    ├── ProfileError               the input is not a profile we can read
    │   ├── FormatError            no reader recognises the content
    │   ├── DecodeError            the bytes do not decode (corrupt gzip, bad protobuf, bad JSON)
    │   ├── ValidationError        decoded, but a field breaks the format's rules (names the field)
    │   ├── SizeLimitError         larger than a configured cap (decompressed size, upload size)
    │   └── SampleTypeError        the requested sample type is not in the profile
    ├── SourceError                a place profiles come from failed
    │   ├── SourceNotFoundError    a file that does not exist or cannot be read
    │   ├── ServerUnreachableError connection refused, DNS failure
    │   ├── ServerTimeoutError     the deadline passed
    │   ├── AuthError              401/403; never carries the secret
    │   ├── UnknownProfileTypeError the server has no such profile type (lists the valid ones)
    │   ├── EmptyResultError       the query matched nothing in that window
    │   ├── BadResponseError       the server answered with something that is not the API
    │   └── QueryError             the query itself is invalid (time range, selector)
    ├── AnalysisError              a valid profile, but the question cannot be answered
    │   └── NoSuchFunctionError    a name or pattern matches no function
    ├── OutputError                a result could not be written (the previous file is left as it was)
    ├── QuestionSetError           an eval question set that cannot be read or misses a field
    ├── ConfigError                the config file or the chosen context is unreadable or invalid
    └── ModelError                 the language-model layer failed
        ├── ModelUnavailableError  not configured, unreachable, rate-limited, timed out
        └── ModelResponseError     the model answered with something unusable

Upstream exceptions are translated at the boundary (``raise X(...) from exc``) to the most
specific class, so callers catch one tree and the CLI maps every leaf to exit status 2.
"""

from __future__ import annotations


class ExplainerError(Exception):
    """Base of every error explainer raises on purpose. ``str()`` is one line."""

    hint: str = ""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        if hint:
            self.hint = hint

    def __str__(self) -> str:
        text = " ".join(str(self.args[0]).split()) if self.args else type(self).__name__
        return f"{text} ({self.hint})" if self.hint else text


class ProfileError(ExplainerError):
    hint = "check that the file is a pprof profile, Pyroscope flame-graph JSON or folded stacks"


class FormatError(ProfileError):
    pass


class DecodeError(ProfileError):
    pass


class ValidationError(ProfileError):
    """A decoded profile breaks a rule of its format; ``field`` names the offending field."""

    def __init__(self, message: str, *, field: str, hint: str = "") -> None:
        super().__init__(f"{field}: {message}", hint=hint)
        self.field = field


class SizeLimitError(ProfileError):
    hint = "raise the limit with --max-size if you trust this input"


class SampleTypeError(ProfileError):
    hint = ""


class SourceError(ExplainerError):
    pass


class SourceNotFoundError(SourceError):
    hint = "check the path"


class ServerUnreachableError(SourceError):
    hint = "check the URL and that the server (or kubectl port-forward) is running"


class ServerTimeoutError(SourceError):
    hint = "try a shorter time range, fewer --max-nodes, or a longer --timeout"


class AuthError(SourceError):
    hint = "check PYROSCOPE_USER / PYROSCOPE_PASSWORD, PYROSCOPE_TOKEN or the tenant"


class UnknownProfileTypeError(SourceError):
    pass


class EmptyResultError(SourceError):
    hint = "widen the time range or loosen the label selector"


class BadResponseError(SourceError):
    hint = "is the URL a Pyroscope server (and not a login page or proxy)?"


class QueryError(SourceError):
    pass


class SelectorError(QueryError):
    """A label selector that does not parse; ``position`` is the index in the text as typed."""

    def __init__(self, message: str, *, position: int, hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.position = position


class AnalysisError(ExplainerError):
    pass


class NoSuchFunctionError(AnalysisError):
    hint = "use 'explainer analyze' to list the functions in this profile"


class OutputError(ExplainerError):
    hint = "check the path and that its directory is writable"


class QuestionSetError(ExplainerError):
    hint = "a question set is TOML ([[question]] tables) or JSONL with question, profile, subject and facts"


class ConfigError(ExplainerError):
    hint = "run `explainer contexts --help` for the file's format"


class ModelError(ExplainerError):
    pass


class ModelUnavailableError(ModelError):
    hint = "the offline explainer answered instead"


class ModelResponseError(ModelError):
    pass
