"""The command lines: ``curling`` (``cli.curling``) and ``rllib`` (``cli.rllib``).

One module per subcommand in ``cli/commands/``: each defines ``add_parser(subparsers)`` (which
registers the subcommand and sets ``func``) and keeps heavy imports inside its ``run(args)``, so
``curling server --help`` imports neither Ray, torch nor Gymnasium.

**Errors.** argparse's ``type=`` converters raise ``argparse.ArgumentTypeError`` (argparse's
idiom: usage line, ``curling X: error: ...``, exit 2). A command's own checks and failures raise
``UsageError`` (bad input: exit 2) or ``CommandError`` (it could not be done: exit 1);
``dispatch`` alone turns them into one line on stderr, ``curling X: message``, and the exit code.
"""

from __future__ import annotations

import argparse
import sys


class CommandError(Exception):
    """A command could not do its work (a server that cannot start, ...): ``dispatch`` prints
    ``curling X: <message>`` on stderr and exits with ``code`` (1)."""

    code = 1


class UsageError(CommandError):
    """Bad input to a command (flag values that do not go together, a missing file, ...):
    ``curling X: <message>`` on stderr, exit code 2."""

    code = 2


def dispatch(parser: argparse.ArgumentParser, argv: list[str] | None) -> int:
    """Parse ``argv`` and run the chosen subcommand's ``func``; help and exit 2 without one.
    A ``CommandError`` becomes one line on stderr and its exit code (module doc)."""
    _replace_unencodable_output()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except CommandError as exc:
        print(f"{parser.prog} {args.command}: {exc}", file=sys.stderr, flush=True)
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


#: Error handlers of a text stream that raise UnicodeEncodeError for a character the encoding
#: lacks (surrogateescape only encodes the surrogates it made when decoding).
_RAISING_ERRORS = ("strict", "surrogateescape", "surrogatepass")


def _replace_unencodable_output() -> None:
    """Let standard output and error print any text in any console code page.

    Help and output hold non-ASCII text (数字冰壶, ±, team names). A Windows console that is
    piped or redirected encodes with the ANSI code page (cp1252, GBK, ...), and so does
    ``PYTHONIOENCODING=cp1252``; a character it lacks would raise UnicodeEncodeError. A stream
    that would raise so prints ``?`` for such a character instead (what it can encode, e.g. the
    Chinese under GBK, comes out as is); UTF-8 streams and streams that already replace are
    left alone. ``surrogateescape`` (what Python picks for some locales) raises too.
    """
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None) or "utf-8"
        errors = getattr(stream, "errors", None)
        if errors not in _RAISING_ERRORS or encoding.lower().startswith("utf"):
            continue
        try:
            stream.reconfigure(errors="replace")  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            pass  # not a TextIOWrapper (replaced by a caller), or closed
