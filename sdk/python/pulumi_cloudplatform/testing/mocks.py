# Unit tests of a program with the provider's own checks (hand-written; sdkgen includes it from
# sdk/overlays/python). set_cloudplatform_mocks() installs pulumi.runtime.set_mocks whose answers
# come from the plugin's mocks server (`pulumi-resource-cloudplatform --mocks`), the same code as the
# TypeScript setCloudPlatformMocks: every cloudplatform resource goes through the provider's real
# `check` (bad inputs fail with the message `pulumi preview` gives) and gets the outputs the
# platform fills in; functions answer from what the test declares.
import atexit
import json
import os
import shutil
import subprocess
import threading
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import pulumi

from .. import _utilities

__all__ = ["CloudPlatformMocks", "MocksError", "set_cloudplatform_mocks", "plugin_command"]

FunctionAnswer = Union[Mapping[str, Any], Sequence[Mapping[str, Any]], Callable[[dict], Mapping[str, Any]]]

PLUGIN = "pulumi-resource-cloudplatform"


class MocksError(Exception):
    """check's message for a refused resource, or a function with no answer."""


def plugin_command() -> list:
    """How the mocks server starts: $CLOUDPLATFORM_PLUGIN, the plugin on PATH (the npm package's
    bin), or the plugin Pulumi installed for this SDK's version."""
    given = os.environ.get("CLOUDPLATFORM_PLUGIN")
    if given:
        return [given, "--mocks"]
    on_path = shutil.which(PLUGIN)
    if on_path:
        return [on_path, "--mocks"]
    home = os.environ.get("PULUMI_HOME") or os.path.join(os.path.expanduser("~"), ".pulumi")
    installed = os.path.join(home, "plugins", f"resource-cloudplatform-v{_utilities.get_version()}", PLUGIN)
    if os.path.exists(installed):
        return [installed, "--mocks"]
    raise MocksError(
        f"{PLUGIN} was not found: put the pulumi-cloudplatform npm package's bin on PATH, set "
        "CLOUDPLATFORM_PLUGIN, or run `pulumi plugin install resource cloudplatform`"
    )


class _Server:
    """The mocks server process: one JSON request a line in, one answer a line out, in order."""

    def __init__(self, command: Sequence[str], options: dict) -> None:
        self._lock = threading.Lock()
        self._next = 0
        self._proc = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
        )
        atexit.register(self.close)
        self.request("init", None, options)

    def request(self, op: str, args: Optional[dict], options: Optional[dict] = None) -> Any:
        with self._lock:
            self._next += 1
            line = {"id": self._next, "op": op, "args": args, "options": options}
            assert self._proc.stdin is not None and self._proc.stdout is not None
            try:
                self._proc.stdin.write(json.dumps(line, default=str) + "\n")
                self._proc.stdin.flush()
                answer = self._proc.stdout.readline()
            except (BrokenPipeError, OSError) as e:
                raise MocksError(f"the cloudplatform mocks server stopped: {e}") from e
            if not answer:
                raise MocksError(f"the cloudplatform mocks server stopped (exit code {self._proc.poll()})")
            reply = json.loads(answer)
            if reply.get("error") is not None:
                raise MocksError(reply["error"])
            return reply.get("result")

    def close(self) -> None:
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()


class CloudPlatformMocks(pulumi.runtime.Mocks):
    """The mocks set_cloudplatform_mocks installs; other providers' resources and calls go to `others`."""

    def __init__(self, server: _Server, functions: Mapping[str, FunctionAnswer], others: Optional[pulumi.runtime.Mocks]) -> None:
        self._server = server
        self._functions = functions
        self._others = others

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        if self._others is not None and not args.typ.startswith("cloudplatform:"):
            return self._others.new_resource(args)
        r = self._server.request(
            "newResource",
            {"type": args.typ, "name": args.name, "inputs": args.inputs, "id": args.resource_id, "custom": args.custom},
        )
        if r is None:
            return (f"{args.name}_id" if args.custom else None, args.inputs)
        return (r.get("id"), r["state"])

    def call(self, args: pulumi.runtime.MockCallArgs):
        if not args.token.startswith("cloudplatform:"):
            return self._others.call(args) if self._others is not None else args.args
        answer = self._functions.get(args.token.split(":")[-1], self._functions.get(args.token))
        if callable(answer):
            return dict(answer(args.args))
        return self._server.request("call", {"token": args.token, "args": args.args})

    def close(self) -> None:
        """Stops the mocks server (it also stops when the test process ends)."""
        self._server.close()


_current: Optional[CloudPlatformMocks] = None


def set_cloudplatform_mocks(
    project: Optional[str] = None,
    stack: Optional[str] = None,
    preview: bool = False,
    functions: Optional[Mapping[str, FunctionAnswer]] = None,
    others: Optional[pulumi.runtime.Mocks] = None,
    command: Optional[Sequence[str]] = None,
) -> CloudPlatformMocks:
    """Installs pulumi.runtime.set_mocks with the provider's checks and the platform's outputs.

    functions: answers of the functions by name (``get_project`` is ``getProject``) or token: an
    object, or a list to pick from by the call's arguments (both checked by the mocks server), or a
    callable of the arguments. Objects the program makes answer too (getProject of its Project's id).
    others: mocks for other providers' resources and calls. command: how to start the mocks server
    (default: plugin_command()).
    """
    global _current
    if _current is not None:
        _current.close()
    functions = dict(functions or {})
    served = {k: v for k, v in functions.items() if not callable(v)}
    server = _Server(command or plugin_command(), {"project": project or "project", "stack": stack or "stack", "functions": served})
    _current = CloudPlatformMocks(server, functions, others)
    pulumi.runtime.set_mocks(_current, project=project, stack=stack, preview=preview)
    return _current
