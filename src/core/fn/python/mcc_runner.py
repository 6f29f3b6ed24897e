"""Introspects and runs Python fn tools for MCC. Standard library only, Python >= 3.8.

    mcc_runner.py introspect [--result-fd N]
        stdin:  {"targets": [{"id": str, "target": str, "path": [dir, ...], "cwd": dir}]}
        result: {"results": [{"id", "ok", "name", "doc", "params", "returns", "takesContext"}
                             | {"id", "ok": false, "error", "traceback", "module"?}]}
    mcc_runner.py execute [--result-fd N]
        stdin:  {"target": str, "kwargs": {...}, "context": {...}}
        result: {"ok": true, "value": ..., "takesContext": bool, "context"?: {...}, "contextError"?: str}
                | {"ok": false, "stage": "import" | "call" | "result", "error", "traceback"}

    mcc_runner.py serve --result-fd N
        A warm process that runs one call after another. stdin: one request a
        line, {"target", "kwargs", "context", "env", "cwd", "fence"}; result:
        one answer a line, as for execute. Before each answer the fence text
        is written to fd 1 and fd 2, so the host knows where the call's output
        ends. Exits at the end of stdin.

The result goes to a channel of its own: fd N when given (the host opens it),
else a private copy of stdout, with fd 1 then pointed at stderr. Either way
nothing the tool prints, nor any child it starts, can corrupt the result.
"""
import collections.abc
import inspect
import importlib
import json
import os
import re
import sys
import traceback
import typing

EMPTY = inspect.Parameter.empty

# The runner's own JSON codecs, made at import: a tool that patches
# json.dumps, json.loads or json.JSONEncoder in a warm process must not
# change, nor forge, the answers of this or later calls.
_encode_strict = json.JSONEncoder(allow_nan=False, ensure_ascii=False).encode
_encode_text = json.JSONEncoder(ensure_ascii=False).encode
_encode_ascii = json.JSONEncoder().encode
_decode = json.JSONDecoder().decode
SKIPPED_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def open_result_channel(argv):
    if "--result-fd" in argv:
        fd = int(argv[argv.index("--result-fd") + 1])
        os.set_inheritable(fd, False)
        return os.fdopen(fd, "wb")
    fd = os.dup(1)  # non-inheritable, so children cannot write to it
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(fd, "wb")


def drop_own_folder():
    # sys.path[0] is this script's folder; tools must not import from there.
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        del sys.path[0]


def candidates(target):
    """(module, attribute path) pairs to try, most specific module first."""
    if ":" in target:
        module, attrs = target.split(":", 1)
        return [(module, attrs.split("."))]
    segs = target.split(".")
    return [(".".join(segs[:i]), segs[i:]) for i in range(len(segs) - 1, 0, -1)]


def tag_module(e, module_name):
    """Remembers on the exception which module was being loaded."""
    try:
        e.mcc_module = module_name
    except Exception:
        pass
    return e


def load_callable(target):
    last_error = None
    for module_name, attrs in candidates(target):
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            # Only "this prefix is not a module" moves on; a missing
            # dependency inside the module is the real error.
            tag_module(e, module_name)
            if e.name != module_name:
                raise
            last_error = e
            continue
        except BaseException as e:  # noqa: B902 - whatever the module raised while importing
            raise tag_module(e, module_name)
        try:
            return resolve_attrs(module, module_name, attrs, target)
        except BaseException as e:  # noqa: B902
            raise tag_module(e, module_name)
    raise last_error if last_error else ImportError("empty target %r" % target)


def resolve_attrs(module, module_name, attrs, target):
    owner, obj = None, module
    for i, name in enumerate(attrs):
        if not hasattr(obj, name):
            where = module_name + (":" + ".".join(attrs[:i]) if i else "")
            raise AttributeError("%s has no attribute %r" % (where, name))
        owner, obj = obj, getattr(obj, name)
    if inspect.isclass(owner) and inspect.isfunction(obj):
        raw = inspect.getattr_static(owner, attrs[-1])
        if not isinstance(raw, (staticmethod, classmethod)):
            # A plain method named on its class: call it on a fresh instance.
            obj = getattr(owner(), attrs[-1])
    if not callable(obj):
        raise TypeError("%r is a %s, not a callable" % (target, type(obj).__name__))
    return obj


def type_hints(fn):
    try:
        return typing.get_type_hints(fn)
    except Exception:
        return {}


SIMPLE = {"int": "int", "float": "float", "str": "str", "bool": "bool", "bytes": "str",
          "list": "list", "tuple": "list", "set": "list", "frozenset": "list", "sequence": "list",
          "iterable": "list", "dict": "dict", "mapping": "dict", "typeddict": "dict"}


def type_from_text(text):
    """Best effort for annotations that stayed strings (unresolvable names)."""
    t = text.strip().replace("typing.", "")
    parts = [p.strip() for p in re.split(r"\|", t) if p.strip() not in ("None", "")]
    if len(parts) == 1:
        t = parts[0]
    m = re.match(r"^Optional\[(.*)\]$", t)
    if m:
        return type_from_text(m.group(1))
    head = re.match(r"^([A-Za-z_][A-Za-z0-9_.]*)", t)
    name = head.group(1).split(".")[-1].lower() if head else ""
    return SIMPLE.get(name, "str")


def param_type(ann):
    if ann is EMPTY or ann is None or ann is typing.Any:
        return "str"
    if isinstance(ann, str):
        return type_from_text(ann)
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin is typing.Union or type(ann).__name__ == "UnionType":
        kinds = {param_type(a) for a in args if a is not type(None)}
        return kinds.pop() if len(kinds) == 1 else "str"
    if origin is typing.Literal:
        kinds = {param_type(type(a)) for a in args}
        return kinds.pop() if len(kinds) == 1 else "str"
    base = origin if origin is not None else ann
    if not inspect.isclass(base):
        return "str"
    if issubclass(base, bool):
        return "bool"
    if issubclass(base, int):
        return "int"
    if issubclass(base, float):
        return "float"
    if issubclass(base, (str, bytes)):
        return "str"
    if issubclass(base, collections.abc.Mapping):
        return "dict"
    if issubclass(base, (list, tuple, set, frozenset, collections.abc.Sequence, collections.abc.Set)):
        return "list"
    return "str"


def type_text(ann):
    if ann is EMPTY:
        return None
    if ann is None or ann is type(None):
        return "None"
    if isinstance(ann, str):
        return ann
    if inspect.isclass(ann) and typing.get_origin(ann) is None:
        return ann.__name__
    return str(ann).replace("typing.", "")


def is_json(value):
    try:
        _encode_strict(value)
        return True
    except (TypeError, ValueError):
        return False


def describe(fn):
    sig = inspect.signature(fn)
    hints = type_hints(fn)
    params, takes_context = [], False
    for p in sig.parameters.values():
        if p.kind in SKIPPED_KINDS:
            continue
        if p.name == "context":
            takes_context = True
            continue
        ann = hints.get(p.name, p.annotation)
        if ann is EMPTY and p.default is not EMPTY and p.default is not None:
            ann = type(p.default)  # unannotated, but the default tells the type
        entry = {"name": p.name, "type": param_type(ann), "required": p.default is EMPTY}
        if p.default is not EMPTY:
            if is_json(p.default):
                entry["default"] = p.default
            else:
                entry["defaultRepr"] = repr(p.default)
        params.append(entry)
    returns = hints.get("return", sig.return_annotation)
    return {
        "name": getattr(fn, "__name__", ""),
        "doc": inspect.getdoc(fn) or "",
        "params": params,
        "returns": type_text(returns),
        "takesContext": takes_context,
    }


def error_fields(e):
    fields = {"error": "%s: %s" % (type(e).__name__, e), "traceback": traceback.format_exc()}
    module = getattr(e, "mcc_module", None)
    if isinstance(module, str):
        fields["module"] = module
    return fields


def introspect(request):
    results = []
    home = os.getcwd()
    for t in request.get("targets", []):
        added = [d for d in t.get("path", []) if d not in sys.path]
        sys.path[0:0] = added
        try:
            os.chdir(t.get("cwd") or home)
            results.append(dict({"id": t["id"], "ok": True}, **describe(load_callable(t["target"]))))
        except BaseException as e:  # noqa: B902 - SystemExit at import is a broken tool too
            results.append(dict({"id": t["id"], "ok": False}, **error_fields(e)))
        finally:
            for d in added:
                if d in sys.path:
                    sys.path.remove(d)
            os.chdir(home)
    return _encode_text({"results": results})


def call_args(fn, kwargs):
    """Positional-only parameters cannot be passed by name."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return [], kwargs
    args = []
    for p in sig.parameters.values():
        if p.kind == inspect.Parameter.POSITIONAL_ONLY and p.name in kwargs:
            args.append(kwargs.pop(p.name))
        elif p.kind == inspect.Parameter.POSITIONAL_ONLY:
            break
    return args, kwargs


def declares_context(fn):
    try:
        p = inspect.signature(fn).parameters.get("context")
    except (TypeError, ValueError):
        return False
    return p is not None and p.kind not in SKIPPED_KINDS


async def await_it(awaitable):
    return await awaitable


def execute(request):
    try:
        fn = load_callable(request["target"])
    except BaseException as e:  # noqa: B902
        return _encode_ascii(dict({"ok": False, "stage": "import"}, **error_fields(e)))
    kwargs = dict(request.get("kwargs") or {})
    takes_context = declares_context(fn)
    context = None
    if takes_context:
        context = request.get("context")
        if not isinstance(context, dict):
            context = {}
        kwargs["context"] = context
    try:
        args, kwargs = call_args(fn, kwargs)
        value = fn(*args, **kwargs)
        if inspect.isawaitable(value):
            import asyncio  # only here: it is the slowest import of a plain call

            value = asyncio.run(await_it(value))
    except SystemExit as e:
        return _encode_ascii({"ok": False, "stage": "call", "error": "the tool called sys.exit(%r)" % (e.code,),
                             "traceback": traceback.format_exc()})
    except BaseException as e:  # noqa: B902
        return _encode_ascii(dict({"ok": False, "stage": "call"}, **error_fields(e)))
    try:
        value_json = _encode_strict(value)
    except (TypeError, ValueError) as e:
        return _encode_ascii({"ok": False, "stage": "result", "traceback": "",
                              "error": "the returned value is not JSON-serialisable: %s" % e})
    out = '{"ok": true, "takesContext": %s, "value": %s' % ("true" if takes_context else "false", value_json)
    if takes_context:
        try:
            out += ', "context": ' + _encode_strict(context)
        except (TypeError, ValueError) as e:
            out += ', "contextError": ' + _encode_ascii("context is not JSON-serialisable: %s" % e)
    return out + "}"


class ModuleWatch:
    """Hot reload for a warm process. Modules whose files lie under the tool's
    folders (PYTHONPATH, which starts with the tool's cwd) are remembered with
    their file's mtime and size; when any of them changed or went away, all of
    them are dropped from sys.modules, so the next import reads the new code.
    Everything else (the standard library, site-packages) stays imported."""

    def __init__(self, roots):
        self.roots = tuple(os.path.join(os.path.normcase(os.path.abspath(r)), "") for r in roots if r)
        self.seen = set(sys.modules)
        self.tracked = {}  # module name -> (file, stamp)

    @staticmethod
    def stamp(path):
        try:
            st = os.stat(path)
            return (st.st_mtime_ns, st.st_size)
        except OSError:
            return None

    def note_new_modules(self):
        for name, module in list(sys.modules.items()):
            if name in self.seen:
                continue
            self.seen.add(name)
            path = getattr(module, "__file__", None)
            if not isinstance(path, str):
                continue
            path = os.path.normcase(os.path.abspath(path))
            if path.startswith(self.roots):
                self.tracked[name] = (path, self.stamp(path))

    def drop_if_changed(self):
        if not any(self.stamp(path) != stamp for path, stamp in self.tracked.values()):
            return False
        for name in self.tracked:
            sys.modules.pop(name, None)
            self.seen.discard(name)
        self.tracked = {}
        importlib.invalidate_caches()
        return True


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def serve(channel):
    """Runs calls one after another until stdin ends.

    Module globals persist between the calls of one process, as they do in
    the original MCC, which imports its tools in-process: a tool may keep a
    cache or a client in a global. Per call, everything else is the call's
    own: os.environ (MCC_CTX, MCC_CTX_<NAME>, env and env_file), the working
    directory, the umask, sys.stdin / sys.stdout / sys.stderr and fds 0, 1
    and 2."""
    requests = os.fdopen(os.dup(0), "rb")  # private and not inherited
    null_fd = os.open(os.devnull, os.O_RDONLY)  # non-inheritable; kept to reset fd 0
    os.dup2(null_fd, 0)  # a tool reading stdin reads nothing, as with execute
    out_fd, err_fd = os.dup(1), os.dup(2)
    real_stdout, real_stderr = sys.stdout, sys.stderr
    stdin_encoding = getattr(sys.stdin, "encoding", None) or "utf-8"
    umask = os.umask(0o022)
    os.umask(umask)
    watch = ModuleWatch(os.environ.get("PYTHONPATH", "").split(os.pathsep))
    failed_import = False
    for line in requests:
        if not line.strip():
            continue
        request = _decode(line.decode("utf-8"))
        os.dup2(null_fd, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        os.umask(umask)
        # A fresh sys.stdin on the /dev/null fd 0: nothing an earlier call put
        # there (another object, a closed stream, buffered data) is left.
        sys.stdin = open(0, "r", encoding=stdin_encoding, closefd=False)
        sys.stdout, sys.stderr = real_stdout, real_stderr
        try:
            # Inside the try: an environment Python refuses (a NUL character)
            # fails this call, never the process and the calls after it.
            os.environ.clear()
            os.environ.update(request.get("env") or {})
            os.chdir(request.get("cwd") or ".")
            if not watch.drop_if_changed() and failed_import:
                importlib.invalidate_caches()  # a module file may have appeared since
            text = execute(request)
        except BaseException as e:  # noqa: B902 - never let one call end the process
            text = _encode_ascii(dict({"ok": False, "stage": "call"}, **error_fields(e)))
        failed_import = text.startswith('{"ok": false, "stage": "import"')
        watch.note_new_modules()
        for stream in (sys.stdout, sys.stderr, real_stdout, real_stderr):
            try:
                stream.flush()
            except Exception:
                pass
        sys.stdout, sys.stderr = real_stdout, real_stderr
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        fence = request.get("fence", "").encode("utf-8")
        write_all(out_fd, fence)
        write_all(err_fd, fence)
        channel.write(text.encode("utf-8") + b"\n")
        channel.flush()
    return 0


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode not in ("introspect", "execute", "serve"):
        sys.stderr.write("usage: mcc_runner.py introspect|execute|serve [--result-fd N]\n")
        return 2
    channel = open_result_channel(argv)
    drop_own_folder()
    if mode == "serve":
        return serve(channel)
    request = _decode(sys.stdin.buffer.read().decode("utf-8") or "{}")
    text = introspect(request) if mode == "introspect" else execute(request)
    channel.write(text.encode("utf-8"))
    channel.flush()
    channel.close()
    return 0


if __name__ == "__main__":
    code = main(sys.argv)
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter shutdown: threads the tool left running must not hold the call.
    os._exit(code)
