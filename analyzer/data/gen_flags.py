#!/usr/bin/env python3
"""Generates analyzer/data/flags.json: every command-line option of the three argparse parsers a
Relax train launch (`python3 -m relax.entrypoints.train ...`) goes through, read statically from
their Python sources with `ast` (nothing is imported; stdlib only, Python 3.11+).

What it reads
  --relax-infra DIR / --relax-studio DIR   a Relax checkout (or a cache of its files) per fork:
      relax/utils/arguments.py             get_slime_extra_args_provider (+ reset_arg calls, the
                                           _add_fp16_optimizer_arguments helper), _pre_parse_mode
      relax/utils/opd/opd_utils.py         add_opd_arguments (+ the teacher SGLang mirror rules)
      relax/backends/sglang/arguments.py   add_sglang_arguments (--sglang-* passthrough, drop list)
  --megatron DIR                           a Megatron-LM tree (the commit Relax pins, with the
                                           patch Relax's image applies: --megatron-patch):
      megatron/training/arguments.py       add_megatron_arguments and its _add_*_args functions
      megatron/training/argument_utils.py  ArgumentGroupFactory (dataclass -> argparse), whose
                                           rules are re-implemented in megatron_factory() below
      the config dataclasses it is given   (TransformerConfig <- ModelParallelConfig, the
                                           megatron/training/config/*.py classes)
  --sglang-server-args FILE                sglang/srt/server_args.py (ServerArgs.add_cli_args).
                                           The annotation style (A[T, Arg(...)], arg_groups/arg_utils
                                           add_cli_args_from_dataclass) is re-implemented in
                                           sglang_fields(); the manual parser.add_argument calls
                                           after it (dynamic choices, --config, deprecated aliases)
                                           in sglang_cli(). Modules it imports are read from the
                                           same tree when present (python/sglang/...): class
                                           constants (Backend.ALL), enums (RealKvHashMode), the
                                           parser maps (ReasoningParser.DetectorMap,
                                           FunctionCallParser.ToolCallParserEnum) and the custom
                                           argparse actions (arg_groups/argparse_actions.py, whose
                                           __init__ defaults - nargs=0, const, default - are read).
                                           A file that is only a prefix of the real one is
                                           accepted: it is cut back to the last complete field and
                                           the catalog says so (notes.sglang_partial).
  --sglang-router-args FILE                sglang_router/router_args.py (RouterArgs.add_cli_args),
                                           optional: the --router-* options Relax adds to the main
                                           parser and the --sglang-router-* passthrough of
                                           relax/backends/sglang/arguments.py
                                           _add_prefixed_router_args (router_cli()).

How Relax combines the parsers (relax/utils/arguments.py parse_args)
  0. _pre_parse_mode(): a throw-away parser (allow_abbrev=False, parse_known_args) reads
     --train-backend, --debug-rollout-only, --debug-train-only, --load-debug-rollout-data,
     --skip-hf-validate ("pre" entries; they are not registered in the main parser).
  1. unless --debug-train-only / --load-debug-rollout-data: sglang_parse_args() builds a separate
     parser (add_help=False, allow_abbrev left True) with Relax's --sglang-router-*/--sglang-profile*
     options plus every ServerArgs option renamed --X -> --sglang-X (framework-owned ones dropped),
     and parse_known_args() over the whole argv; teacher_sglang_parse_args() does the same with
     --teacher-sglang-X and default=SUPPRESS ("sglang" entries).
  2. megatron_parse_args() -> Megatron parse_args(extra_args_provider=add_slime_arguments,
     ignore_unknown_args=True): one ArgumentParser(allow_abbrev=False) holding Megatron's options
     ("megatron") plus Relax's ("relax"), parse_known_args(); reset_arg() only changes the default
     of a Megatron option that exists (recorded per fork), or adds the option when it does not.
  Unknown tokens are dropped by every parse_known_args; type/choice/nargs errors still exit(2).

Regenerating for another version
  Put the sources of the new commits in directories laid out like the repositories (only the
  files above are needed), then run, e.g.
    python3 analyzer/data/gen_flags.py --relax-infra CACHE/relax-infra \
        --relax-studio CACHE/relax-studio --megatron CACHE/megatron-patched --megatron-patch megatron_patch \
        --sglang-server-args CACHE/sglang/python/sglang/srt/server_args.py \
        --sglang-router-args CACHE/sglang-router/bindings/python/src/sglang_router/router_args.py \
        --manifest CACHE/MANIFEST.json -o analyzer/data/flags.json
  MANIFEST.json names each source's repo and commit and each file's commit (see
  --commit-of KEY=SHA / --file-commit KEY:PATH=SHA to give them on the command line instead).
  The output is sorted and stable (one option per line). If a new Megatron/SGLang version changes
  the factory code (argument_utils.py / arg_utils.py), update megatron_factory()/sglang_fields().
  A choices= or default= that names something not in the tree (a Rust binding, an environment
  variable, sglang.srt.utils.common) stays {"computed": ...} / choices null.
"""

import argparse
import ast
import builtins
import copy
import inspect
import json
import os
import re
import sys

SCHEMA = 1
BOOL_OPT = 'boolean_optional'


# --------------------------------------------------------------------------------------------
# Static evaluation of argparse keyword values
# --------------------------------------------------------------------------------------------

class Computed:
    """A value that is only known at run time (or not expressible in JSON)."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return f'Computed({self.text!r})'


SUPPRESS = Computed('argparse.SUPPRESS')


class NS:
    """Static attributes of a class (`Backend.ALL`, `ServerArgs.reasoning_parser`), for lookups
    through an Evaluator env."""

    def __init__(self, name, attrs):
        self.name = name
        self.attrs = attrs

    def __repr__(self):
        return f'NS({self.name})'


class EnumMember:
    def __init__(self, name, value):
        self.name = name
        self.value = value


class EnumNS(NS):
    """An Enum class: iterating it yields its members (name, value)."""

    def __init__(self, name, members):
        super().__init__(name, {m.name: m for m in members})
        self.members = members


class Module:
    """One parsed source file: its text, AST and module-level constant assignments."""

    def __init__(self, path, relpath, text=None, tree=None):
        self.path = path
        self.relpath = relpath
        self.text = text if text is not None else open(path, encoding='utf-8').read()
        self.tree = tree if tree is not None else ast.parse(self.text)
        self.consts = {}
        self.imports = {}
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.consts[node.targets[0].id] = node.value
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    self.imports[a.asname or a.name] = (node.module, a.name, node.level)

    def funcs(self):
        out = {}
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.setdefault(node.name, node)
        return out


def jsonable(v):
    if isinstance(v, Computed):
        if v is SUPPRESS or v.text == 'argparse.SUPPRESS':
            return {'suppress': True}
        return {'computed': v.text}
    if isinstance(v, (list, tuple, set, frozenset)):
        items = [jsonable(x) for x in v]
        if isinstance(v, (set, frozenset)):
            items = sorted(items, key=lambda x: json.dumps(x, sort_keys=True))
        return items
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, float):
        if v != v or v in (float('inf'), float('-inf')):
            return {'computed': repr(v)}
        return v
    if v is None or isinstance(v, (bool, int, str)):
        return v
    return {'computed': repr(v)}


class Evaluator:
    """Evaluates the literal part of an expression; anything else becomes Computed(source)."""

    def __init__(self, module, env=None):
        self.module = module
        self.env = env or {}

    def ev(self, node):
        try:
            return self._ev(node)
        except _NotStatic:
            return Computed(ast.unparse(node))

    def _ev(self, n):
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, (ast.List, ast.Tuple, ast.Set)):
            out = []
            for e in n.elts:
                if isinstance(e, ast.Starred):
                    out.extend(self._ev(e.value))
                else:
                    out.append(self._ev(e))
            return tuple(out) if isinstance(n, ast.Tuple) else (set(out) if isinstance(n, ast.Set) else out)
        if isinstance(n, ast.Dict):
            return {self._ev(k): self._ev(v) for k, v in zip(n.keys, n.values)}
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = self._ev(n.operand)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return -v if isinstance(n.op, ast.USub) else v
            raise _NotStatic
        if isinstance(n, ast.BinOp):
            a, b = self._ev(n.left), self._ev(n.right)
            if isinstance(a, str) and isinstance(b, str) and isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Add) and ((isinstance(a, list) and isinstance(b, list)) or
                                              (isinstance(a, tuple) and isinstance(b, tuple))):
                return a + b
            nums = (int, float)
            if isinstance(a, nums) and isinstance(b, nums) and not isinstance(a, bool) and not isinstance(b, bool):
                ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                       ast.Pow: lambda: a ** b, ast.FloorDiv: lambda: a // b, ast.Div: lambda: a / b}
                if type(n.op) in ops:
                    return ops[type(n.op)]()
            raise _NotStatic
        if isinstance(n, ast.JoinedStr):
            parts = []
            for v in n.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) and \
                        v.value.id in self.env and v.conversion == -1 and v.format_spec is None and \
                        isinstance(self.env[v.value.id], (str, int, float, list, tuple)) and \
                        not isinstance(self.env[v.value.id], bool):
                    # a local the caller evaluated (f"--{prefix}policy", f"... {choices}")
                    parts.append(str(self.env[v.value.id]))
                elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Attribute) and \
                        v.value.attr == '__doc__':
                    # another module's docstring pasted into a help (SGLang's human_readable_int):
                    # not read, so left out rather than shown as '{...}'
                    continue
                else:
                    parts.append('{' + ast.unparse(v.value) + '}')
            return ''.join(parts).rstrip() if any(isinstance(v, ast.FormattedValue) and
                                                  isinstance(v.value, ast.Attribute) and
                                                  v.value.attr == '__doc__' for v in n.values) else ''.join(parts)
        if isinstance(n, ast.IfExp):
            t = self._ev(n.test)
            if not isinstance(t, bool):
                raise _NotStatic
            return self._ev(n.body if t else n.orelse)
        if isinstance(n, ast.Subscript):
            base, idx = self._ev(n.value), self._ev(n.slice)
            if isinstance(base, (list, tuple)) and isinstance(idx, int) and not isinstance(idx, bool) \
                    and -len(base) <= idx < len(base):
                return base[idx]
            if isinstance(base, dict) and isinstance(idx, (str, int)) and idx in base:
                return base[idx]
            raise _NotStatic
        if isinstance(n, ast.ListComp) and len(n.generators) == 1 and not n.generators[0].ifs and \
                isinstance(n.generators[0].target, ast.Name) and not n.generators[0].is_async:
            it = self._ev(n.generators[0].iter)
            if isinstance(it, EnumNS):
                it = it.members
            if not isinstance(it, (list, tuple)):
                raise _NotStatic
            out = []
            for x in it:
                sub = Evaluator(self.module, dict(self.env, **{n.generators[0].target.id: x}))
                out.append(sub._ev(n.elt))
            return out
        if isinstance(n, ast.Name):
            if n.id in self.env:
                return self.env[n.id]
            if n.id in self.module.consts:
                return self._ev(self.module.consts[n.id])
            raise _NotStatic
        if isinstance(n, ast.Attribute) and ast.unparse(n) == 'argparse.SUPPRESS':
            return SUPPRESS
        if isinstance(n, ast.Attribute):
            base = self._ev(n.value)
            if isinstance(base, NS) and n.attr in base.attrs:
                return base.attrs[n.attr]
            if isinstance(base, EnumMember) and n.attr in ('name', 'value'):
                return getattr(base, n.attr)
            raise _NotStatic
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ('list', 'tuple') \
                and len(n.args) == 1 and not n.keywords:
            v = self._ev(n.args[0])
            if isinstance(v, EnumNS):
                v = v.members
            if isinstance(v, dict):
                v = list(v)
            if isinstance(v, (list, tuple, set)):
                return list(v) if n.func.id == 'list' else tuple(v)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and not n.args and not n.keywords:
            base = self._ev(n.func.value)
            if isinstance(base, dict) and n.func.attr == 'keys':
                return list(base)
            if isinstance(base, str) and n.func.attr in ('lower', 'upper'):
                return getattr(base, n.func.attr)()
        raise _NotStatic


class _NotStatic(Exception):
    pass


def src(node):
    return ast.unparse(node) if node is not None else None


def type_name(node, value=None):
    """Catalog name of an argparse `type=` callable given as an AST node (or a python type)."""
    if node is None:
        return None
    if isinstance(node, str):
        return node
    t = ast.unparse(node)
    return {'int': 'int', 'float': 'float', 'str': 'str', 'bool': 'bool', 'json.loads': 'json',
            'Path': 'path', 'pathlib.Path': 'path', 'os.path.abspath': 'path'}.get(t, 'other:' + t)


ACTIONS = {'store', 'store_true', 'store_false', 'store_const', 'append', 'append_const', 'count',
           'extend', 'help', 'version'}


def action_name(node):
    if node is None:
        return 'store'
    if isinstance(node, str):
        return node
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    t = ast.unparse(node)
    if t in ('argparse.BooleanOptionalAction', 'BooleanOptionalAction'):
        return BOOL_OPT
    return 'other:' + t.split('.')[-1]


def dest_of(names, dest):
    if dest:
        return dest
    longs = [s for s in names if s.startswith('--')]
    first = (longs or names)[0]
    return first.lstrip('-').replace('-', '_')


def make_option(names, kw, ev, *, parser, file, line, group=None, type_override=None):
    """Builds a catalog entry the way argparse.add_argument would interpret `kw` (AST nodes, or
    already-evaluated python values wrapped in ('py', value))."""

    def val(k, default=None):
        if k not in kw:
            return default
        v = kw[k]
        if isinstance(v, tuple) and len(v) == 2 and v[0] == 'py':
            return v[1]
        return ev.ev(v)

    def node(k):
        v = kw.get(k)
        if isinstance(v, tuple) and len(v) == 2 and v[0] == 'py':
            return None
        return v

    act_raw = kw.get('action')
    if isinstance(act_raw, tuple) and act_raw[0] == 'py':
        action = act_raw[1]
    else:
        action = action_name(act_raw)
    names = list(names)
    if action == BOOL_OPT:
        names = names + ['--no-' + s[2:] for s in names if s.startswith('--')]
    dest = dest_of(list(names), val('dest'))
    nargs = val('nargs')
    if isinstance(nargs, Computed):
        nargs = {'argparse.REMAINDER': '...', 'argparse.ONE_OR_MORE': '+', 'argparse.ZERO_OR_MORE': '*',
                 'argparse.OPTIONAL': '?'}.get(nargs.text, nargs.text)
    if 'default' in kw:
        default = val('default')
    elif action == 'store_true':
        default = False
    elif action == 'store_false':
        default = True
    else:
        default = None
    if type_override is not None:
        typ = type_override
    elif 'type' in kw:
        tv = kw['type']
        typ = tv[1] if isinstance(tv, tuple) and tv[0] == 'py' else type_name(tv)
    elif action in ('store_true', 'store_false', 'store_const', 'append_const', 'count', 'help',
                    'version', BOOL_OPT):
        typ = 'none'
    else:
        typ = 'str'
    choices = val('choices')
    if choices is not None:
        if isinstance(choices, Computed):
            choices = None
        else:
            if isinstance(choices, (set, frozenset)):  # argparse keeps the set; its order is the hash's
                choices = sorted(choices, key=lambda x: json.dumps(jsonable(x), sort_keys=True))
            choices = [c if isinstance(c, str) else (c.text if isinstance(c, Computed) else json.dumps(c) if not isinstance(c, (int, float)) else str(c)) for c in choices]
    help_ = val('help', '')
    if isinstance(help_, tuple):
        help_ = ''.join(help_)
    if help_ is SUPPRESS:
        help_ = '==SUPPRESS=='
    if isinstance(help_, Computed):
        help_ = '{' + help_.text + '}'
    opt = {
        'names': names,
        'dest': dest,
        'parser': parser,
        'action': action,
        'nargs': nargs if not isinstance(nargs, Computed) else nargs.text,
        'type': typ,
        'choices': choices,
        'default': jsonable(default),
        'const': jsonable(val('const')) if 'const' in kw else None,
        'required': bool(val('required', False)) if not isinstance(val('required', False), Computed) else False,
        'help': help_ if isinstance(help_, str) else str(help_),
        'deprecated': None,
        'file': file,
        'line': line,
    }
    if group:
        opt['group'] = group
    md = val('metavar')
    if md is not None:
        opt['metavar'] = jsonable(md)
    if 'deprecated' in kw:
        d = val('deprecated')
        if d:
            opt['deprecated'] = 'argparse deprecated=True'
    return opt


def call_kwargs(call):
    """(positional option strings, {kw: node}) of an add_argument call; None if not static."""
    names = []
    for a in call.args:
        if isinstance(a, ast.Constant) and isinstance(a.value, str):
            names.append(a.value)
        else:
            return None, None
    kw = {}
    for k in call.keywords:
        if k.arg is None:
            return None, None
        kw[k.arg] = k.value
    return names, kw


def is_call_to(node, attr):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == attr


# --------------------------------------------------------------------------------------------
# A parser model: options in registration order, with argparse's conflict rule
# --------------------------------------------------------------------------------------------

class ParserModel:
    def __init__(self, name):
        self.name = name
        self.options = []
        self.by_string = {}

    def add(self, opt):
        for s in opt['names']:
            if s in self.by_string:
                raise SystemExit(f'{self.name}: conflicting option string {s} '
                                 f"({opt['file']}:{opt['line']} vs {self.by_string[s]['file']}:{self.by_string[s]['line']})")
        self.options.append(opt)
        for s in opt['names']:
            self.by_string[s] = opt

    def find(self, s):
        return self.by_string.get(s)


# --------------------------------------------------------------------------------------------
# Megatron: ArgumentGroupFactory re-implemented over the dataclass ASTs
# --------------------------------------------------------------------------------------------

class Tree:
    """A source tree: maps dotted module names to files."""

    def __init__(self, root, label):
        self.root = root
        self.label = label
        self.cache = {}

    def module(self, dotted):
        rel = dotted.replace('.', '/')
        for cand in (rel + '.py', rel + '/__init__.py'):
            p = os.path.join(self.root, cand)
            if os.path.exists(p):
                if cand not in self.cache:
                    self.cache[cand] = Module(p, cand)
                return self.cache[cand]
        return None

    def resolve_class(self, module, name, depth=0):
        """(Module, ClassDef) of `name` as seen from `module` (follows from-imports)."""
        for node in module.tree.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                return module, node
        if name in module.imports and depth < 6:
            mod, orig, level = module.imports[name]
            dotted = mod
            if level:
                base = module.relpath.rsplit('/', 1)[0].replace('/', '.')
                parts = base.split('.')
                if level > 1:
                    parts = parts[:-(level - 1)]
                dotted = '.'.join(parts + ([mod] if mod else []))
            m = self.module(dotted)
            if m is not None:
                return self.resolve_class(m, orig, depth + 1)
        return None, None


STDLIB_ENUMS = {'Signals': 'signal'}


def enum_members(tree, module, name):
    m, cls = tree.resolve_class(module, name)
    if cls is None:
        if name in STDLIB_ENUMS:  # e.g. signal.Signals: members of this Python's stdlib enum
            import enum
            import importlib
            e = getattr(importlib.import_module(STDLIB_ENUMS[name]), name, None)
            if isinstance(e, enum.EnumMeta):
                return [x.name for x in e]
        return None
    bases = [ast.unparse(b) for b in cls.bases]
    if not any('Enum' in b for b in bases):
        return None
    out = []
    for st in cls.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            if not st.targets[0].id.startswith('_'):
                out.append(st.targets[0].id)
    return out


def field_docstrings(tree, module, cls):
    """ArgumentGroupFactory._get_field_docstrings: (attribute, string) pairs of the class body,
    cleandoc'ed and whitespace-joined; then the first base class's (which win on a clash)."""
    out = {}
    body = cls.body
    for a, b in zip(body, body[1:]):
        if isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name) and \
                isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant) and isinstance(b.value.value, str):
            out[a.target.id] = ' '.join(inspect.cleandoc(b.value.value).split())
    if cls.bases:
        bname = ast.unparse(cls.bases[0])
        if bname not in builtins.__dict__:
            m2, c2 = tree.resolve_class(module, bname)
            if c2 is not None:
                out.update(field_docstrings(tree, m2, c2))
    return out


def dataclass_fields(tree, module, cls):
    """dataclasses.fields() order: base-class fields first (first base only is followed, which is
    all these configs use), a redefinition keeps its original position."""
    fields = {}
    order = []
    if cls.bases:
        m2, c2 = tree.resolve_class(module, ast.unparse(cls.bases[0]))
        if c2 is not None:
            for f in dataclass_fields(tree, m2, c2):
                fields[f['name']] = f
                order.append(f['name'])
    for st in cls.body:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            ann = ast.unparse(st.annotation)
            if ann.startswith('ClassVar') or ann.startswith('typing.ClassVar'):
                continue
            f = {'name': st.target.id, 'ann': st.annotation, 'value': st.value, 'module': module,
                 'line': st.lineno, 'cls': cls.name}
            if st.target.id not in fields:
                order.append(st.target.id)
            fields[st.target.id] = f
    return [fields[n] for n in order]


def field_default_and_meta(f, ev):
    """(default python value or Computed, metadata dict of AST nodes or None, init flag)."""
    v = f['value']
    meta = None
    init = True
    if isinstance(v, ast.Call) and ast.unparse(v.func) in ('field', 'dataclasses.field'):
        kw = {k.arg: k.value for k in v.keywords}
        if 'default' in kw:
            default = ev.ev(kw['default'])
        elif 'default_factory' in kw:
            fac = ast.unparse(kw['default_factory'])
            default = {'list': [], 'dict': {}, 'set': set(), 'tuple': ()}.get(fac)
            if default is None:
                lam = kw['default_factory']
                if isinstance(lam, ast.Lambda):
                    default = ev.ev(lam.body)
                else:
                    default = Computed(fac + '()')
        else:
            default = Computed('<MISSING>')
        if 'init' in kw and isinstance(kw['init'], ast.Constant):
            init = bool(kw['init'].value)
        if 'metadata' in kw and isinstance(kw['metadata'], ast.Dict):
            for k, mv in zip(kw['metadata'].keys, kw['metadata'].values):
                if isinstance(k, ast.Constant) and k.value == 'argparse_meta' and isinstance(mv, ast.Dict):
                    meta = {kk.value: vv for kk, vv in zip(mv.keys, mv.values)}
        return default, meta, init
    if v is None:
        return Computed('<MISSING>'), None, True
    return ev.ev(v), None, True


def resolve_enum_default(value, node):
    if isinstance(value, Computed) and node is not None and isinstance(node, ast.Attribute):
        return node.attr  # e.g. AttnBackend.auto -> 'auto' (the name a user would type)
    return value


def extract_type(tree, module, ann):
    """ArgumentGroupFactory._extract_type over an annotation AST. Returns kwargs dict with
    'type' (catalog type name, or ('bool',)), 'choices', 'nargs'; raises TypeError if the real
    factory would raise TypeInferenceError."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        ann = ast.parse(ann.value, mode='eval').body
    if isinstance(ann, ast.Name) or isinstance(ann, ast.Attribute):
        name = ast.unparse(ann)
        if name in ('int', 'float', 'str'):
            return {'type': name}
        if name == 'bool':
            return {'type': 'bool'}
        short = name.split('.')[-1]
        mem = enum_members(tree, module, short)
        if mem is not None:
            return {'type': 'other:enum:' + short, 'choices': mem, '_enum': short}
        return {'type': 'other:' + name}
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        if ast.unparse(ann.right) == 'None':
            return extract_type(tree, module, ann.left)
        raise TypeError('union')
    if isinstance(ann, ast.Subscript):
        origin = ast.unparse(ann.value).split('.')[-1]
        sl = ann.slice
        elts = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        if origin == 'Optional':
            return extract_type(tree, module, elts[0])
        if origin == 'Union':
            if len(elts) >= 2 and ast.unparse(elts[1]) == 'None':
                return extract_type(tree, module, elts[0])
            raise TypeError('union')
        if origin in ('list', 'List'):
            if len(elts) == 1:
                k = extract_type(tree, module, elts[0])
                k['nargs'] = '+'
                return k
            raise TypeError('multi-type list')
        if origin == 'Literal':
            vals = [e.value for e in elts]
            t = type(vals[0]).__name__
            return {'type': t, 'choices': vals}
        raise TypeError('unsupported ' + origin)
    raise TypeError('unsupported ' + ast.unparse(ann))


def megatron_factory(tree, module, class_name, exclude, title, parser, arg_py_file):
    """ArgumentGroupFactory(cls, exclude).build_group(parser, title)."""
    m, cls = tree.resolve_class(module, class_name)
    if cls is None:
        raise SystemExit(f'cannot find dataclass {class_name} from {module.relpath}')
    docs = field_docstrings(tree, m, cls)
    n = 0
    for f in dataclass_fields(tree, m, cls):
        fev = Evaluator(f['module'])
        default, meta, init = field_default_and_meta(f, fev)
        if f['name'] in exclude or not init:
            continue
        dnode = f['value']
        if isinstance(dnode, ast.Call) and ast.unparse(dnode.func) in ('field', 'dataclasses.field'):
            dnode = {k.arg: k.value for k in dnode.keywords}.get('default')
        default = resolve_enum_default(default, dnode)
        kw = {'dest': ('py', f['name']), 'help': ('py', docs.get(f['name'], '')), 'default': ('py', default)}
        names = ['--' + f['name'].replace('_', '-')]
        typ = None
        action = None
        try:
            t = extract_type(tree, f['module'], f['ann'])
            if t.get('choices') is not None:
                kw['choices'] = ('py', t['choices'])
            if t.get('nargs') is not None:
                kw['nargs'] = ('py', t['nargs'])
            typ = t['type']
            if typ == 'bool':
                # "store_true" if attribute.default == False else "store_false"
                is_false = (not isinstance(default, Computed)) and default is not None and default == False  # noqa: E712
                action = 'store_true' if is_false else 'store_false'
                typ = None
                if action == 'store_false':
                    names = ['--no-' + f['name'].replace('_', '-'), '--disable-' + f['name'].replace('_', '-')]
        except TypeError as e:
            if meta is None:
                raise SystemExit(f"{class_name}.{f['name']}: the factory would raise TypeInferenceError ({e})")
        if meta is not None:
            for k, v in meta.items():
                if k == 'arg_names':
                    names = fev.ev(v)
                elif k == 'type':
                    typ = type_name(v)
                elif k == 'action':
                    action = action_name(v)
                else:
                    kw[k] = v
        if action is not None:
            kw['action'] = ('py', action)
        opt = make_option(names, kw, fev, parser='megatron', file=f['module'].relpath, line=f['line'],
                          group=title, type_override=(typ if typ is not None else 'none') if action else typ)
        opt['built_by'] = f'ArgumentGroupFactory({class_name})'
        parser.add(opt)
        n += 1
    return n


def collect_calls(fn_body, visit, conds=()):
    """Walk statements in order (entering if/else/with/for/try), calling visit(stmt, conds) where
    conds are the source texts of the enclosing `if` tests (negated in else branches)."""
    for st in fn_body:
        visit(st, conds)
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(st, ast.If):
            t = ast.unparse(st.test)
            collect_calls(st.body, visit, conds + (t,))
            collect_calls(st.orelse, visit, conds + ('not (' + t + ')',))
            continue
        for attr in ('body', 'orelse', 'finalbody'):
            sub = getattr(st, attr, None)
            if isinstance(sub, list):
                collect_calls(sub, visit, conds)
        for h in getattr(st, 'handlers', []) or []:
            collect_calls(h.body, visit, conds + ('except ' + (ast.unparse(h.type) if h.type else '') ,))


def megatron_parser(mroot):
    tree = Tree(mroot, 'megatron')
    mod = tree.module('megatron.training.arguments')
    if mod is None:
        raise SystemExit(f'{mroot}: megatron/training/arguments.py not found')
    funcs = {n.name: n for n in mod.tree.body if isinstance(n, ast.FunctionDef)}
    order = []
    for st in funcs['add_megatron_arguments'].body:
        if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Name):
            order.append(st.value.func.id)
    parser = ParserModel('megatron')
    ev = Evaluator(mod)
    for fname in order:
        fn = funcs[fname]
        groups = {'parser': None}
        # local imports: from megatron.training.config import X
        local_imports = {}
        for st in ast.walk(fn):
            if isinstance(st, ast.ImportFrom) and st.module:
                for a in st.names:
                    local_imports[a.asname or a.name] = (st.module, a.name)
        fmod = mod
        lenv = {}

        def visit(st, conds=(), fn=fn):
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                tgt = st.targets[0].id
                v = st.value
                if isinstance(v, ast.List) or isinstance(v, ast.Tuple):
                    lenv[tgt] = v
                if is_call_to(v, 'add_argument_group'):
                    kw = {k.arg: k.value for k in v.keywords}
                    t = kw.get('title', v.args[0] if v.args else None)
                    groups[tgt] = ev.ev(t) if t is not None else None
                elif is_call_to(v, 'add_mutually_exclusive_group'):
                    base = ast.unparse(v.func.value)
                    groups[tgt] = groups.get(base)
                elif isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == 'ArgumentGroupFactory':
                    cls_name = ast.unparse(v.args[0])
                    kw = {k.arg: k.value for k in v.keywords}
                    excl = []
                    if 'exclude' in kw:
                        en = kw['exclude']
                        if isinstance(en, ast.Name):
                            en = lenv[en.id]
                        excl = [e.value for e in en.elts]
                    lenv['__factory_' + tgt] = (cls_name, excl)
                elif is_call_to(v, 'build_group'):
                    fac = ast.unparse(v.func.value)
                    cls_name, excl = lenv['__factory_' + fac]
                    kw = {k.arg: k.value for k in v.keywords}
                    t = kw.get('title', v.args[1] if len(v.args) > 1 else None)
                    title = ev.ev(t) if t is not None else None
                    groups[tgt] = title
                    if cls_name in local_imports:
                        m2 = tree.module(local_imports[cls_name][0])
                        megatron_factory(tree, m2, local_imports[cls_name][1], excl, title, parser, mod.relpath)
                    else:
                        megatron_factory(tree, fmod, cls_name, excl, title, parser, mod.relpath)
            for node in ast.walk(st) if not isinstance(st, (ast.If, ast.For, ast.With, ast.Try)) else [getattr(st, 'test', None)]:
                if node is not None and is_call_to(node, 'add_argument'):
                    names, kw = call_kwargs(node)
                    if names is None:
                        raise SystemExit(f'{mod.relpath}:{node.lineno}: non-static add_argument')
                    g = groups.get(ast.unparse(node.func.value))
                    lev = Evaluator(mod, {k: Evaluator(mod).ev(v) for k, v in lenv.items() if not k.startswith('__')})
                    opt = make_option(names, kw, lev, parser='megatron', file=mod.relpath, line=node.lineno, group=g)
                    opt['function'] = fname
                    if conds:
                        opt['conditional'] = ' and '.join(conds)
                    parser.add(opt)

        collect_calls(fn.body, visit)
    return parser, mod


# --------------------------------------------------------------------------------------------
# Relax: add_slime_arguments on top of the Megatron parser
# --------------------------------------------------------------------------------------------

def relax_parser(root, fork, mparser, router=None):
    args_mod = Module(os.path.join(root, 'relax/utils/arguments.py'), 'relax/utils/arguments.py')
    opd_path = os.path.join(root, 'relax/utils/opd/opd_utils.py')
    opd_mod = Module(opd_path, 'relax/utils/opd/opd_utils.py') if os.path.exists(opd_path) else None
    parser = copy.deepcopy(mparser)
    parser.name = fork
    resets = {}
    notes = {'router_args_calls': []}
    top = {n.name: n for n in args_mod.tree.body if isinstance(n, ast.FunctionDef)}
    provider = top['get_slime_extra_args_provider']
    inner = next(n for n in provider.body if isinstance(n, ast.FunctionDef) and n.name == 'add_slime_arguments')
    nested = {n.name: n for n in inner.body if isinstance(n, ast.FunctionDef)}
    ev = Evaluator(args_mod)

    def do_add(names, kw, module, line, fname):
        opt = make_option(names, kw, Evaluator(module), parser='relax', file=module.relpath, line=line)
        opt['function'] = fname
        parser.add(opt)

    def run_body(body, module, fname):
        def visit(st):
            if isinstance(st, ast.If):
                return  # handled by run_if
            for node in ast.walk(st):
                if not isinstance(node, ast.Call):
                    continue
                if is_call_to(node, 'add_argument'):
                    names, kw = call_kwargs(node)
                    do_add(names, kw, module, node.lineno, fname)
                elif isinstance(node.func, ast.Name) and node.func.id == 'reset_arg':
                    name = node.args[1].value
                    kw = {k.arg: k.value for k in node.keywords}
                    existing = parser.find(name)
                    if existing is not None:
                        if 'default' in kw:
                            newd = jsonable(Evaluator(module).ev(kw['default']))
                            resets[existing['dest'] + '|' + name] = {'names': existing['names'], 'default': newd,
                                                                      'line': node.lineno, 'file': module.relpath}
                    else:
                        do_add([name], kw, module, node.lineno, fname + ' (reset_arg)')
                elif isinstance(node.func, ast.Attribute) and ast.unparse(node.func) == 'RouterArgs.add_cli_args':
                    notes['router_args_calls'].append({'file': module.relpath, 'line': node.lineno,
                                                        'call': ast.unparse(node)})
                    if router is not None:
                        # sglang_router RouterArgs.add_cli_args on the main (Megatron+Relax) parser
                        rkw = {k.arg: Evaluator(module).ev(k.value) for k in node.keywords}
                        for e in router_cli(router['mod'], router['env'], rkw.get('use_router_prefix', False),
                                            rkw.get('exclude_host_port', False)):
                            opt = make_option(e['names'], e['kw'], Evaluator(router['mod'], router['env']),
                                              parser='relax', file=ROUTER_FILE, line=e['line'], group=e['group'])
                            opt['function'] = 'RouterArgs.add_cli_args'
                            opt['router_source'] = 'sglang-router'
                            parser.add(apply_action_extra(opt, e['extra']))
                elif isinstance(node.func, ast.Name) and node.func.id in nested and node.func.id != fname:
                    run_fn(nested[node.func.id], args_mod)
                elif isinstance(node.func, ast.Name) and node.func.id in top and node.func.id.startswith('_add_'):
                    run_fn(top[node.func.id], args_mod)
                elif isinstance(node.func, ast.Name) and node.func.id == 'add_opd_arguments' and opd_mod:
                    fn = next(n for n in opd_mod.tree.body if isinstance(n, ast.FunctionDef) and n.name == 'add_opd_arguments')
                    run_fn(fn, opd_mod)

        for st in body:
            if isinstance(st, ast.If):
                t = st.test
                # `if "--x" not in parser._option_string_actions:` (studio _add_fp16_optimizer_arguments)
                if isinstance(t, ast.Compare) and isinstance(t.ops[0], ast.NotIn) and \
                        isinstance(t.left, ast.Constant) and ast.unparse(t.comparators[0]).endswith('_option_string_actions'):
                    if parser.find(t.left.value) is None:
                        run_body(st.body, module, fname)
                    else:
                        run_body(st.orelse, module, fname)
                elif ast.unparse(t) == 'add_custom_arguments is not None':
                    pass  # user hook, None for the train entrypoint
                else:
                    run_body(st.body, module, fname)
                    run_body(st.orelse, module, fname)
            elif isinstance(st, ast.FunctionDef):
                continue
            else:
                visit(st)

    seen = set()

    def run_fn(fn, module):
        key = (module.relpath, fn.name)
        if key in seen:
            return
        seen.add(key)
        run_body(fn.body, module, fn.name)

    run_body(inner.body, args_mod, 'add_slime_arguments')
    # pre-parse
    pre = ParserModel(fork + ':pre')
    if '_pre_parse_mode' in top:
        for node in ast.walk(top['_pre_parse_mode']):
            if is_call_to(node, 'add_argument'):
                names, kw = call_kwargs(node)
                opt = make_option(names, kw, ev, parser='pre', file=args_mod.relpath, line=node.lineno)
                opt['function'] = '_pre_parse_mode'
                pre.add(opt)
    removed = None
    if '_REMOVED_MTP_DETACH_FLAGS' in args_mod.consts:
        removed = ev.ev(args_mod.consts['_REMOVED_MTP_DETACH_FLAGS'])
    return parser, pre, resets, notes, args_mod, opd_mod, removed


# --------------------------------------------------------------------------------------------
# SGLang: ServerArgs (annotation style) -> argparse, then Relax's --sglang-* wrapper
# --------------------------------------------------------------------------------------------

def load_partial_module(path, relpath):
    text = open(path, encoding='utf-8').read()
    try:
        return Module(path, relpath, text), False, len(text)
    except SyntaxError:
        pass
    # cut back to the last complete ServerArgs field: a line at 4-space indent starting a new
    # annotated field or a comment banner
    cut = len(text)
    pat = re.compile(r'\n    (?:[A-Za-z_][A-Za-z0-9_]*: |# -{10})')
    starts = [m.start() for m in pat.finditer(text)]
    for pos in reversed(starts):
        try:
            t2 = text[:pos] + '\n'
            mod = Module(path, relpath, t2)
            return mod, True, pos
        except SyntaxError:
            continue
    raise SystemExit(f'{path}: cannot parse even a prefix')


def sglang_unwrap_annotated(ann):
    """(inner type node, Arg kwargs dict of nodes or None, help-from-bare-string node)."""
    if isinstance(ann, ast.Subscript) and ast.unparse(ann.value) in ('A', 'Annotated', 'typing.Annotated'):
        sl = ann.slice
        elts = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        inner = elts[0]
        for a in elts[1:]:
            if isinstance(a, ast.Call) and ast.unparse(a.func) == 'Arg':
                return inner, {k.arg: k.value for k in a.keywords}
            if isinstance(a, (ast.Constant, ast.JoinedStr)) and (not isinstance(a, ast.Constant) or isinstance(a.value, str)):
                return inner, {'help': a}
            if isinstance(a, ast.BinOp):
                return inner, {'help': a}
        return inner, None
    return ann, None


def sg_unwrap_optional(t):
    if isinstance(t, ast.Subscript) and ast.unparse(t.value) in ('Optional', 'typing.Optional'):
        return t.slice, True
    if isinstance(t, ast.Subscript) and ast.unparse(t.value) in ('Union', 'typing.Union'):
        elts = list(t.slice.elts) if isinstance(t.slice, ast.Tuple) else [t.slice]
        non_none = [e for e in elts if ast.unparse(e) != 'None']
        if len(non_none) == 1:
            return non_none[0], True
    if isinstance(t, ast.BinOp) and isinstance(t.op, ast.BitOr):
        parts = []

        def flat(x):
            if isinstance(x, ast.BinOp) and isinstance(x.op, ast.BitOr):
                flat(x.left)
                flat(x.right)
            else:
                parts.append(x)
        flat(t)
        non_none = [e for e in parts if ast.unparse(e) != 'None']
        if len(non_none) == 1:
            return non_none[0], True
    return t, False


def sg_infer(tname):
    return tname if tname in ('str', 'int', 'float') else 'str'


def class_namespace(module, cls, env=None):
    """Static class attributes (plain and annotated assignments, `field(default=...)`) of a class
    body, evaluated in order so later ones may name earlier ones (`ALL = (FULL, ...)`). A dict
    literal keeps its static keys even when its values are not static (`DetectorMap`). An Enum
    class becomes an EnumNS of its members."""
    env = dict(env or {})
    attrs = {}
    bases = [ast.unparse(b) for b in cls.bases]
    is_enum = any(b.split('.')[-1] in ('Enum', 'IntEnum', 'StrEnum', 'IntFlag', 'Flag') for b in bases)
    members = []
    for st in cls.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            name, value = st.targets[0].id, st.value
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
            name, value = st.target.id, st.value
        else:
            continue
        ev = Evaluator(module, dict(env, **attrs))
        if isinstance(value, ast.Call) and ast.unparse(value.func) in ('dataclasses.field', 'field'):
            kws = {k.arg: k.value for k in value.keywords}
            if 'default' not in kws:
                continue  # default_factory fields leave no class attribute
            v = ev.ev(kws['default'])
        elif isinstance(value, ast.Dict) and all(k is not None for k in value.keys):
            v = {ev.ev(k): ev.ev(x) for k, x in zip(value.keys, value.values)}
            if any(isinstance(k, Computed) for k in v):
                v = Computed(ast.unparse(value))
        else:
            v = ev.ev(value)
        attrs[name] = v
        if is_enum and not name.startswith('_'):
            members.append(EnumMember(name, v))
    return EnumNS(cls.name, members) if is_enum else NS(cls.name, attrs)


def module_env(tree, mod):
    """Names a module can see statically: its own top-level classes, and the classes and
    constants it imports from modules present in `tree` (the source cache). Anything not present
    stays unknown (Computed)."""
    env = {}
    for node in mod.tree.body:
        if isinstance(node, ast.ClassDef):
            env[node.name] = class_namespace(mod, node)
    for local, (dotted, orig, level) in sorted(mod.imports.items()):
        if level or tree is None:
            continue
        m = tree.module(dotted)
        if m is None:
            continue
        cls = next((n for n in m.tree.body if isinstance(n, ast.ClassDef) and n.name == orig), None)
        if cls is not None:
            env[local] = class_namespace(m, cls)
        elif orig in m.consts:
            v = Evaluator(m).ev(m.consts[orig])
            if not isinstance(v, Computed):
                env[local] = v
    return env


def kwval(ev, v):
    """A keyword value as make_option keeps it: ('py', value) or an AST node."""
    if isinstance(v, tuple) and len(v) == 2 and v[0] == 'py':
        return v[1]
    return ev.ev(v)


def custom_action_info(tree, mod, node):
    """What an `action=SomeAction` class does with add_argument's keywords, read from its
    __init__: the argparse.Action keywords it fills with its own defaults (nargs=0, default=False,
    const=True ...), and the extra keywords it consumes itself (new_flag, error_message, ...)."""
    if not isinstance(node, ast.Name):
        return None
    m, cls = tree.resolve_class(mod, node.id) if tree is not None else (None, None)
    if cls is None:
        return None
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == '__init__'), None)
    info = {'class': cls.name, 'file': m.relpath, 'line': cls.lineno, 'argparse_defaults': {},
            'consumed': [], 'calls_parser_error': False}
    info['stores'] = False
    for n in ast.walk(cls):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == 'error' \
                and ast.unparse(n.func.value) == 'parser':
            info['calls_parser_error'] = True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == 'setattr':
            info['stores'] = True
    if init is None:
        return info
    args = init.args.args[3:]  # self, option_strings, dest
    defaults = init.args.defaults[len(init.args.defaults) - len(args):] if args else []
    pad = [None] * (len(args) - len(defaults))
    passed = set()
    for n in ast.walk(init):
        if isinstance(n, ast.Call) and ast.unparse(n.func).endswith('__init__'):
            for k in n.keywords:
                if k.arg is not None and isinstance(k.value, ast.Name) and k.value.id == k.arg:
                    passed.add(k.arg)
    ev = Evaluator(m)
    for a, d in zip(args, pad + list(defaults)):
        if a.arg in passed:
            info['argparse_defaults'][a.arg] = ev.ev(d) if d is not None else None
        else:
            info['consumed'].append(a.arg)
    return info


def static_kwargs(call, ev, tree=None, mod=None):
    """add_argument keywords evaluated with `ev` (locals already in its env), as ('py', value)
    entries make_option takes; type= and action= are kept by name. Returns (names, kw, extra)
    where extra holds what a custom action class consumes and its deprecation."""
    names = []
    for a in call.args:
        v = ev.ev(a)
        if not isinstance(v, str):
            return None, None, None
        names.append(v)
    kw = {}
    raw = {}
    for k in call.keywords:
        if k.arg is None:
            return None, None, None
        raw[k.arg] = k.value
    extra = {}
    info = custom_action_info(tree, mod, raw.get('action')) if 'action' in raw else None
    for k, v in raw.items():
        if k == 'type':
            kw[k] = ('py', type_name(v))
        elif k == 'action':
            kw[k] = ('py', action_name(v))
        elif info is not None and k in info['consumed']:
            extra[k] = jsonable(ev.ev(v))
        else:
            kw[k] = ('py', ev.ev(v))
    if info is not None:
        for k, d in info['argparse_defaults'].items():
            if k not in kw:
                kw[k] = ('py', d)
        if 'type' not in raw and kwval(ev, kw.get('nargs', ('py', None))) == 0:
            kw['type'] = ('py', 'none')  # a flag that takes no value, like store_true
        extra['_action'] = info
    return names, kw, extra


def sglang_fields(mod, env):
    """arg_utils.add_cli_args_from_dataclass(parser, ServerArgs): list of (names, kw, line, field)."""
    cls = next((n for n in mod.tree.body if isinstance(n, ast.ClassDef) and n.name == 'ServerArgs'), None)
    if cls is None:
        raise SystemExit('ServerArgs not found')
    ev = Evaluator(mod, env)
    out = []
    for st in cls.body:
        if not (isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)):
            continue
        name = st.target.id
        inner, arg = sglang_unwrap_annotated(st.annotation)
        if arg is None:
            continue
        if 'no_cli' in arg and ev.ev(arg['no_cli']) is True:
            continue
        cli_name = ev.ev(arg['cli_name']) if 'cli_name' in arg and ev.ev(arg['cli_name']) else '--' + name.replace('_', '-')
        aliases = ev.ev(arg['aliases']) if 'aliases' in arg else None
        names = [cli_name] + list(aliases or [])
        # default
        missing = False
        if st.value is None:
            missing = True
            default = None
        elif isinstance(st.value, ast.Call) and ast.unparse(st.value.func) in ('dataclasses.field', 'field'):
            kws = {k.arg: k.value for k in st.value.keywords}
            if 'default' in kws:
                default = ev.ev(kws['default'])
            elif 'default_factory' in kws:
                fac = ast.unparse(kws['default_factory'])
                default = {'list': [], 'dict': {}, 'set': set()}.get(fac)
                if default is None:
                    lam = kws['default_factory']
                    default = ev.ev(lam.body) if isinstance(lam, ast.Lambda) else Computed(fac + '()')
            else:
                missing = True
                default = None
        else:
            default = ev.ev(st.value)
        auto_dest = cli_name.lstrip('-').replace('-', '_')
        kw = {'help': arg.get('help', ast.Constant(''))}
        if name != auto_dest:
            kw['dest'] = ast.Constant(name)
        if not missing:
            kw['default'] = ('py', default)

        def put(k, v):
            kw[k] = v
        if 'action' in arg and not (isinstance(arg['action'], ast.Constant) and arg['action'].value is None):
            put('action', arg['action'])
            if 'action_kwargs' in arg:
                ak = arg['action_kwargs']
                if isinstance(ak, ast.Dict):
                    for k, v in zip(ak.keys, ak.values):
                        put(k.value, v)
            out.append((names, kw, st.lineno, name))
            continue
        t, _opt = sg_unwrap_optional(inner)
        tp_node = arg.get('type_parser')
        if isinstance(t, ast.Subscript) and ast.unparse(t.value) in ('Literal', 'typing.Literal'):
            elts = list(t.slice.elts) if isinstance(t.slice, ast.Tuple) else [t.slice]
            vals = [e.value for e in elts]
            put('choices', arg['choices'] if 'choices' in arg else ('py', vals))
            put('type', tp_node if tp_node is not None else ('py', sg_infer(type(vals[0]).__name__ if vals else 'str')))
            for k in ('nargs', 'const'):
                if k in arg:
                    put(k, arg[k])
            out.append((names, kw, st.lineno, name))
            continue
        origin = ast.unparse(t.value) if isinstance(t, ast.Subscript) else None
        if origin in ('list', 'List', 'typing.List') and tp_node is None:
            el = t.slice
            put('type', ('py', sg_infer(ast.unparse(el))))
            put('nargs', arg['nargs'] if 'nargs' in arg else ('py', '+'))
            if 'choices' in arg:
                put('choices', arg['choices'])
            if 'const' in arg:
                put('const', arg['const'])
            out.append((names, kw, st.lineno, name))
            continue
        if ast.unparse(t) == 'bool':
            put('action', ('py', 'store_true'))
            out.append((names, kw, st.lineno, name))
            continue
        put('type', tp_node if tp_node is not None else ('py', sg_infer(ast.unparse(t))))
        for k in ('choices', 'nargs', 'const'):
            if k in arg:
                put(k, arg[k])
        req = ev.ev(arg['required']) if 'required' in arg else None
        if req is True or (req is None and missing):
            put('required', ast.Constant(True))
        out.append((names, kw, st.lineno, name))
    return out


def sglang_cli(mod, env, tree, partial=False):
    """ServerArgs.add_cli_args(parser) in registration order: the dataclass factory's fields, then
    the manual parser.add_argument calls (dynamic choices, --config, deprecated aliases).
    Items: dict(names, kw, line, field or None, extra)."""
    cls = next((n for n in mod.tree.body if isinstance(n, ast.ClassDef) and n.name == 'ServerArgs'), None)
    fn = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == 'add_cli_args'), None) if cls else None
    if fn is None:
        if partial:  # a prefix of server_args.py: only the fields read so far
            return [{'names': names, 'kw': kw, 'line': line, 'field': field, 'extra': {}}
                    for names, kw, line, field in sglang_fields(mod, env)]
        raise SystemExit('ServerArgs.add_cli_args not found')
    local = dict(env)
    out = []
    for st in fn.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            local[st.targets[0].id] = Evaluator(mod, local).ev(st.value)
            continue
        if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)):
            continue
        call = st.value
        if ast.unparse(call.func) == 'add_cli_args_from_dataclass':
            for names, kw, line, field in sglang_fields(mod, env):
                out.append({'names': names, 'kw': kw, 'line': line, 'field': field, 'extra': {}})
        elif is_call_to(call, 'add_argument') and ast.unparse(call.func.value) == 'parser':
            names, kw, extra = static_kwargs(call, Evaluator(mod, local), tree, mod)
            if names is None:
                raise SystemExit(f'{mod.relpath}:{call.lineno}: non-static add_argument')
            out.append({'names': names, 'kw': kw, 'line': call.lineno, 'field': None, 'extra': extra})
    return out


def apply_action_extra(opt, extra, prefix='--'):
    """Catalog keys for a custom action class (deprecation, the keywords it consumed). prefix: how
    this parser spells ServerArgs' flags (--sglang-, --teacher-sglang-), so a deprecated alias
    names its replacement as a user of that parser writes it."""
    info = extra.get('_action')
    args = {k: v for k, v in extra.items() if not k.startswith('_')}
    if isinstance(args.get('new_flag'), str) and args['new_flag'].startswith('--'):
        args['new_flag'] = prefix + args['new_flag'][2:]
    if args:
        opt['action_args'] = dict(sorted(args.items()))
    if info is None:
        return opt
    opt['action_class'] = f"{info['file']}:{info['line']} {info['class']}"
    if info['class'].startswith('Deprecated'):
        new = args.get('new_flag')
        if info['calls_parser_error'] and args.get('error_message'):
            opt['deprecated'] = f"{info['class']}: parser.error: {args['error_message']}"
            opt['deprecated_effect'] = 'error'
        else:
            h = help_deprecation(opt.get('help'))
            said = h[len('help: '):] if h and h.startswith('help: ') else None
            opt['deprecated'] = (said + ' ' if said else '') + \
                f"({info['class']} prints a deprecation warning and " + \
                ('still stores the value' if info['stores'] else 'the flag has no other effect') + \
                (f"; use {new})" if new and not (said and new in said) else ')')
            opt['deprecated_effect'] = 'warning'
    return opt


def router_cli(mod, env, use_router_prefix, exclude_host_port):
    """RouterArgs.add_cli_args(parser, use_router_prefix, exclude_host_port) (sglang_router
    router_args.py): list of dict(names, kw, line, group, extra) in registration order."""
    cls = next((n for n in mod.tree.body if isinstance(n, ast.ClassDef) and n.name == 'RouterArgs'), None)
    fn = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == 'add_cli_args'), None) if cls else None
    if fn is None:
        raise SystemExit(f'{mod.relpath}: RouterArgs.add_cli_args not found')
    local = dict(env, use_router_prefix=use_router_prefix, exclude_host_port=exclude_host_port)
    groups = {}
    out = []

    def run(body):
        for st in body:
            if isinstance(st, ast.If):
                test = Evaluator(mod, local).ev(st.test) if not isinstance(st.test, ast.UnaryOp) else None
                if isinstance(st.test, ast.UnaryOp) and isinstance(st.test.op, ast.Not):
                    t = Evaluator(mod, local).ev(st.test.operand)
                    test = (not t) if isinstance(t, bool) else Computed(ast.unparse(st.test))
                if not isinstance(test, bool):
                    raise SystemExit(f'{mod.relpath}:{st.lineno}: cannot decide `if {ast.unparse(st.test)}`')
                run(st.body if test else st.orelse)
                continue
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                v = st.value
                if is_call_to(v, 'add_argument_group'):
                    groups[st.targets[0].id] = Evaluator(mod, local).ev(v.args[0]) if v.args else None
                else:
                    local[st.targets[0].id] = Evaluator(mod, local).ev(v)
                continue
            if isinstance(st, ast.Expr) and is_call_to(st.value, 'add_argument'):
                call = st.value
                names, kw, extra = static_kwargs(call, Evaluator(mod, local))
                if names is None:
                    raise SystemExit(f'{mod.relpath}:{call.lineno}: non-static add_argument')
                out.append({'names': names, 'kw': kw, 'line': call.lineno,
                            'group': groups.get(ast.unparse(call.func.value)), 'extra': extra})
    run(fn.body)
    return out


ROUTER_FILE = 'bindings/python/src/sglang_router/router_args.py'


def relax_sglang_parser(root, fork, sg, opd_mod, router):
    """add_sglang_arguments(parser) for one fork; returns (rollout parser, teacher parser, dropped, ...)."""
    sg_mod, sg_env, sg_tree = sg['mod'], sg['env'], sg['tree']
    mod = Module(os.path.join(root, 'relax/backends/sglang/arguments.py'), 'relax/backends/sglang/arguments.py')
    top = {n.name: n for n in mod.tree.body if isinstance(n, ast.FunctionDef)}
    fn = top['add_sglang_arguments']
    router_fn = top['add_sglang_router_arguments']
    ev = Evaluator(mod)
    p = ParserModel(fork + ':sglang')
    skipped = None
    for st in ast.walk(fn):
        if isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name) and st.targets[0].id == 'skipped_args':
            skipped = ev.ev(st.value)
    entries = sglang_cli(sg_mod, sg_env, sg_tree, sg['partial'])
    sev = Evaluator(sg_mod, sg_env)
    dropped = []
    router_notes = {'passthrough': None}

    def add_plain(node, module):
        names, kw = call_kwargs(node)
        opt = make_option(names, kw, Evaluator(module), parser='sglang', file=module.relpath, line=node.lineno)
        opt['function'] = 'add_sglang_arguments'
        p.add(opt)

    def canonical(names, kw):
        """The wrappers' skip key: dest= if given, else the first long flag (--a-b -> a_b)."""
        if 'dest' in kw:
            return kwval(sev, kw['dest'])
        for s in names:
            if s.startswith('--'):
                return s[2:].replace('-', '_')
        return None

    def prefixed_router_args(fdef):
        """relax _add_prefixed_router_args: RouterArgs.add_cli_args(parser, use_router_prefix=False,
        exclude_host_port=False) with argparse._ActionsContainer.add_argument patched: fields in
        _router_passthrough_skip_fields() are dropped, --x becomes --sglang-router-x, and a dest
        not starting with router_ becomes router_<dest>."""
        skip_fn = top.get('_router_passthrough_skip_fields')
        skip = set()
        if skip_fn is not None:
            for n in ast.walk(skip_fn):
                if isinstance(n, ast.Return) and n.value is not None:
                    skip = set(ev.ev(n.value))
        call = next((n for n in ast.walk(fdef) if isinstance(n, ast.Call) and
                     ast.unparse(n.func) == 'RouterArgs.add_cli_args'), None)
        kws = {k.arg: ev.ev(k.value) for k in call.keywords}
        router_notes['passthrough'] = {'file': mod.relpath, 'line': call.lineno, 'call': ast.unparse(call),
                                       'skipped_fields': sorted(skip)}
        if router is None:
            router_notes['passthrough']['not_read'] = True
            return
        rev = Evaluator(router['mod'], router['env'])
        for e in router_cli(router['mod'], router['env'], kws.get('use_router_prefix', False),
                            kws.get('exclude_host_port', False)):
            canon = canonical(e['names'], e['kw'])
            if canon in skip:
                continue
            names = ['--sglang-router-' + s[2:] if s.startswith('--') else s for s in e['names']]
            kw = dict(e['kw'])
            if canon and not str(canon).startswith('router_'):
                kw['dest'] = ('py', 'router_' + canon)
            opt = make_option(names, kw, rev, parser='sglang', file=ROUTER_FILE, line=e['line'], group=e['group'])
            opt['function'] = '_add_prefixed_router_args -> RouterArgs.add_cli_args'
            opt['router_source'] = 'sglang-router'
            p.add(apply_action_extra(opt, e['extra']))

    for node in router_fn.body:
        for c in ast.walk(node):
            if is_call_to(c, 'add_argument'):
                add_plain(c, mod)
            elif isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == '_add_prefixed_router_args' \
                    and c.func.id in top:
                prefixed_router_args(top[c.func.id])
    set_defaults = {}
    for st in fn.body:
        for c in ast.walk(st):
            if is_call_to(c, 'set_defaults'):
                for k in c.keywords:
                    set_defaults[k.arg] = ev.ev(k.value)
        if isinstance(st, ast.FunctionDef):
            continue
        if isinstance(st, ast.Expr) and is_call_to(st.value, 'add_cli_args') and ast.unparse(st.value.func) == 'ServerArgs.add_cli_args':
            for e in entries:
                names, kw, line, fname = e['names'], e['kw'], e['line'], e['field']
                canon = canonical(names, kw)
                new_names = ['--sglang-' + s.lstrip('-') for s in names]
                if canon and canon in skipped:
                    dropped.append({'names': new_names, 'field': fname, 'line': line})
                    continue
                kw2 = dict(kw)
                if 'dest' in kw2:
                    d = kwval(sev, kw2['dest'])
                    if isinstance(d, str) and not d.startswith('sglang_'):
                        kw2['dest'] = ('py', 'sglang_' + d)
                opt = make_option(new_names, kw2, sev, parser='sglang', file='python/sglang/srt/server_args.py', line=line)
                if fname is not None:
                    opt['sglang_field'] = fname
                else:
                    opt['function'] = 'ServerArgs.add_cli_args'
                p.add(apply_action_extra(opt, e['extra'], '--sglang-'))
            continue
        if isinstance(st, ast.Expr) and is_call_to(st.value, 'add_argument') and ast.unparse(st.value.func.value) == 'parser':
            add_plain(st.value, mod)
    # parser.set_defaults(router_balance_abs_threshold=..., ...) runs after the router options are
    # registered: argparse writes the new default into every action with that dest
    for o in p.options:
        if o['dest'] in set_defaults:
            o['default_before_set_defaults'] = o['default']
            o['default'] = jsonable(set_defaults[o['dest']])
            o['set_defaults_at'] = mod.relpath
    # a dropped ServerArgs spelling that Relax registers itself (--sglang-config) is not dropped
    dropped = [d for d in dropped if not any(n in p.by_string for n in d['names'])]
    # teacher mirror (opd_utils._mirror_teacher_sglang_server_args): ServerArgs.add_cli_args with
    # every flag -> --teacher-sglang-x, dest -> teacher_sglang_<dest>, default=SUPPRESS
    tp = ParserModel(fork + ':teacher')
    tskip = ()
    if opd_mod is not None and '_SGLANG_PASSTHROUGH_SKIP_ARGS' in opd_mod.consts:
        tskip = Evaluator(opd_mod).ev(opd_mod.consts['_SGLANG_PASSTHROUGH_SKIP_ARGS'])
        for e in entries:
            names, kw, line, fname = e['names'], e['kw'], e['line'], e['field']
            canon = canonical(names, kw)
            if canon in tskip:
                continue
            kw2 = dict(kw)
            if 'dest' in kw2:
                d = kwval(sev, kw2['dest'])
                if isinstance(d, str) and not d.startswith('teacher_sglang_'):
                    kw2['dest'] = ('py', 'teacher_sglang_' + d)
            kw2['default'] = ('py', SUPPRESS)
            opt = make_option(['--teacher-sglang-' + s.lstrip('-') for s in names], kw2, sev, parser='sglang',
                              file='python/sglang/srt/server_args.py', line=line)
            if fname is not None:
                opt['sglang_field'] = fname
            else:
                opt['function'] = 'ServerArgs.add_cli_args'
            opt['sglang_parser'] = 'teacher'
            tp.add(apply_action_extra(opt, e['extra'], '--teacher-sglang-'))
    return p, tp, dropped, set_defaults, skipped, tskip, mod, router_notes


# --------------------------------------------------------------------------------------------
# Deprecation notes from validators
# --------------------------------------------------------------------------------------------

DEP_RE = re.compile(r'deprecat|no longer|been removed|is removed', re.I)


def validator_notes(module, fname, flag_to_dest):
    """Deprecations stated by a validator. Returns ({dest: (kind, msg)}, {dest: {value: (kind, msg)}}).
    An option is marked only when its own flag is named as deprecated / no longer valid / removed
    ("--x is deprecated", "--x argument is no longer valid"); a branch testing `args.x == 'v'` (or
    `in (...)`) whose message says so marks the value instead. kind = 'error' when the statement
    fails the job (assert, raise, exit()), else 'warning'."""
    fns = [n for n in module.tree.body if isinstance(n, ast.FunctionDef) and n.name == fname]
    opts, vals = {}, {}
    if not fns:
        return opts, vals

    def strings(node):
        s = []
        for x in ast.walk(node):
            if isinstance(x, ast.Constant) and isinstance(x.value, str):
                s.append(x.value)
            elif isinstance(x, ast.JoinedStr):
                s.append(''.join(v.value if isinstance(v, ast.Constant) else '{}' for v in x.values))
        return s

    def value_tests(test):
        out = []
        for x in ast.walk(test):
            if isinstance(x, ast.Compare) and isinstance(x.left, ast.Attribute) and isinstance(x.left.value, ast.Name) \
                    and x.left.value.id == 'args' and isinstance(x.ops[0], (ast.Eq, ast.In)):
                c = x.comparators[0]
                vs = [c.value] if isinstance(c, ast.Constant) else [e.value for e in getattr(c, 'elts', []) if isinstance(e, ast.Constant)]
                out.append((x.left.attr, vs))
        return out

    def named_deprecated(msg):
        hits = []
        for flag, dest in flag_to_dest.items():
            if re.search(re.escape(flag) + r"(?![\w-])(?: argument| flag| option)? (?:is|are|has been|was) "
                         r"(?:now )?(?:deprecated|no longer|removed)", msg):
                hits.append(dest)
        return hits

    def fatal_of(stmts):
        for st in stmts:
            for x in ast.walk(st):
                if isinstance(x, (ast.Raise, ast.Assert)) or (isinstance(x, ast.Call) and ast.unparse(x.func) in ('exit', 'sys.exit')):
                    return True
        return False

    def is_exit(st):
        return isinstance(st, (ast.Raise, ast.Assert)) or (
            isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and ast.unparse(st.value.func) in ('exit', 'sys.exit'))

    for node in ast.walk(fns[0]):
        if isinstance(node, ast.Assert) and node.msg is not None:
            msg = ' '.join(strings(node.msg))
            n_args = {x.attr for x in ast.walk(node.test) if isinstance(x, ast.Attribute)
                      and isinstance(x.value, ast.Name) and x.value.id == 'args'}
            if DEP_RE.search(msg) and len(n_args) == 1:  # "cannot give both" asserts are conflicts, not removals
                for d in named_deprecated(msg):
                    opts.setdefault(d, ('error', msg))
        elif isinstance(node, ast.If):
            idx = [i for i, st in enumerate(node.body) if any(DEP_RE.search(m) for m in strings(st))
                   and not isinstance(st, (ast.If, ast.Assert))]
            if not idx:
                continue
            msg = ' '.join(m for i in idx for m in strings(node.body[i]) if DEP_RE.search(m))
            fatal = any(is_exit(node.body[i]) or (i + 1 < len(node.body) and is_exit(node.body[i + 1])) for i in idx)
            kind = 'error' if fatal else 'warning'
            vt = value_tests(node.test)
            if vt:
                for d, vs in vt:
                    for v in vs:
                        vals.setdefault(d, {}).setdefault(str(v), (kind, msg))
                continue
            for d in named_deprecated(msg):
                opts.setdefault(d, (kind, msg))
    return opts, vals


def help_deprecation(h):
    if not h or not re.search(r'deprecat', h, re.I):
        return None
    for sent in re.split(r'(?<=[.!?])\s+', h):
        if re.search(r'deprecat', sent, re.I):
            return 'help: ' + sent.strip()
    return 'help mentions deprecation'


# --------------------------------------------------------------------------------------------
# Assembly
# --------------------------------------------------------------------------------------------

def strip_internal(opt):
    return {k: v for k, v in opt.items() if not k.startswith('_')}


def opt_key(o):
    return (o['parser'], o['names'][0], ','.join(o.get('in', [])), o.get('sglang_parser', ''))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--relax-infra', required=True)
    ap.add_argument('--relax-studio', required=True)
    ap.add_argument('--megatron', required=True)
    ap.add_argument('--sglang-server-args', required=True)
    ap.add_argument('--sglang-router-args', help='sglang_router router_args.py (RouterArgs); without it the '
                    '--router-* / --sglang-router-* passthrough options are left out and noted as not read')
    ap.add_argument('--manifest', help='JSON: {key: {repo, commit, files: {path: commit}}}')
    ap.add_argument('--megatron-patch', metavar='KEY',
                    help='the --megatron tree has a patch applied (the Relax image patches Megatron-LM '
                    'before training): KEY names its manifest entry ({repo, path, commit, git_blob}), '
                    'recorded as sources.megatron.patched_with; line numbers are the patched files\'')
    ap.add_argument('--commit-of', action='append', default=[], help='KEY=SHA')
    ap.add_argument('--file-commit', action='append', default=[], help='KEY:PATH=SHA')
    ap.add_argument('-o', '--output', required=True)
    a = ap.parse_args()

    sources = {'relax-infra': {'repo': 'redai-infra/Relax', 'commit': None, 'files': {}},
               'relax-studio': {'repo': 'redai-studio/Relax', 'commit': None, 'files': {}},
               'megatron': {'repo': 'NVIDIA/Megatron-LM', 'commit': None, 'files': {}},
               'sglang': {'repo': 'sgl-project/sglang', 'commit': None, 'files': {}}}
    if a.sglang_router_args:
        sources['sglang-router'] = {'repo': None, 'commit': None, 'files': {}}
    if a.manifest:
        man = json.load(open(a.manifest))
        for k, v in man.items():
            if k in sources:
                sources[k].update(v)
    if a.megatron_patch:
        if not a.manifest or a.megatron_patch not in man:
            sys.exit('gen_flags.py: --megatron-patch %s: no such entry in the manifest' % a.megatron_patch)
        sources['megatron']['patched_with'] = {k: man[a.megatron_patch][k] for k in
                                               ('repo', 'path', 'commit', 'git_blob') if k in man[a.megatron_patch]}
    for kv in a.commit_of:
        k, v = kv.split('=', 1)
        sources[k]['commit'] = v
    for kv in a.file_commit:
        k, rest = kv.split(':', 1)
        pth, v = rest.rsplit('=', 1)
        sources[k]['files'][pth] = v

    mparser, margs_mod = megatron_parser(a.megatron)
    mflags = {n: o['dest'] for o in mparser.options for n in o['names']}
    mdep, mvals = validator_notes(margs_mod, 'validate_args', mflags)

    sg_mod, sg_partial, sg_cut = load_partial_module(a.sglang_server_args, 'python/sglang/srt/server_args.py')
    # the tree that holds sglang/ (python/ of a checkout, or the cache's copy of it): modules
    # server_args.py imports from are read from it when present (choice lists, action classes)
    sg_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(a.sglang_server_args))))
    sg_tree = Tree(sg_root, 'sglang')
    sg = {'mod': sg_mod, 'env': module_env(sg_tree, sg_mod), 'tree': sg_tree, 'partial': sg_partial}
    router = None
    if a.sglang_router_args:
        rmod = Module(a.sglang_router_args, ROUTER_FILE)
        router = {'mod': rmod, 'env': module_env(None, rmod)}

    forks = {'relax-infra': a.relax_infra, 'relax-studio': a.relax_studio}
    per_fork = {}
    for fork, root in forks.items():
        rp, pre, resets, rnotes, amod, omod, removed = relax_parser(root, fork, mparser, router)
        sp, tp, dropped, sdefs, skipped, tskip, smod, srnotes = relax_sglang_parser(root, fork, sg, omod, router)
        per_fork[fork] = dict(rp=rp, pre=pre, resets=resets, rnotes=rnotes, amod=amod, omod=omod, sp=sp, tp=tp,
                              dropped=dropped, sdefs=sdefs, skipped=skipped, tskip=tskip, removed=removed,
                              srnotes=srnotes,
                              rdep=validator_notes(amod, 'slime_validate_args',
                                                   {n: o['dest'] for o in rp.options for n in o['names']}))

    options = []
    # Megatron options (identical in both forks), with Relax's reset_arg defaults
    mdests = set()
    for o in mparser.options:
        o = dict(o)
        mdests.add(o['dest'])
        rs = {}
        for fork, d in per_fork.items():
            r = d['resets'].get(o['dest'] + '|' + o['names'][0]) or next(
                (v for k, v in d['resets'].items() if k.split('|', 1)[0] == o['dest'] and k.split('|', 1)[1] in o['names']), None)
            if r is not None:
                rs[fork] = r['default']
                o.setdefault('relax_reset_at', {})[fork] = f"{r['file']}:{r['line']}"
        if rs:
            vals = list(rs.values())
            o['megatron_default'] = o['default']
            if len(rs) == 2 and vals[0] == vals[1]:
                o['default'] = vals[0]
            else:
                o['relax_defaults'] = rs
        if o['dest'] in mvals:
            o['deprecated_values'] = {v: {'effect': k, 'message': m} for v, (k, m) in sorted(mvals[o['dest']].items())}
        if o['dest'] in mdep:
            kind, msg = mdep[o['dest']]
            o['deprecated'] = ('rejected by validate_args: ' if kind == 'error' else 'warned by validate_args: ') + msg
            o['deprecated_effect'] = kind
        elif help_deprecation(o['help']):
            o['deprecated'] = help_deprecation(o['help'])
        options.append(o)

    # Relax options per fork, merged when identical
    def merge(entries_by_fork, parser_name):
        groups = {}
        for fork, opts in sorted(entries_by_fork.items()):
            for o in opts:
                body = json.dumps({k: v for k, v in o.items() if k not in ('in', 'line')}, sort_keys=True)
                g = groups.setdefault(body, (o, {}))
                g[1][fork] = o['line']
        out = []
        for body, (o, lines) in groups.items():
            o = dict(o)
            o['in'] = sorted(lines)
            o['line'] = lines[o['in'][0]]
            if len(set(lines.values())) > 1:
                o['line_in'] = dict(sorted(lines.items()))
            out.append(o)
        return out

    relax_by_fork = {}
    for fork, d in per_fork.items():
        lst = []
        for o in d['rp'].options:
            if o['parser'] != 'relax':
                continue
            o = dict(o)
            rdep, rvals = d['rdep']
            if o['dest'] in rvals:
                o['deprecated_values'] = {v: {'effect': k, 'message': m} for v, (k, m) in sorted(rvals[o['dest']].items())}
            if o['dest'] in rdep:
                kind, msg = rdep[o['dest']]
                o['deprecated'] = ('rejected by slime_validate_args: ' if kind == 'error' else 'warned by slime_validate_args: ') + msg
                o['deprecated_effect'] = kind
            elif help_deprecation(o['help']):
                o['deprecated'] = help_deprecation(o['help'])
            lst.append(o)
        relax_by_fork[fork] = lst
    options += merge(relax_by_fork, 'relax')
    options += merge({f: [dict(o) for o in d['pre'].options] for f, d in per_fork.items()}, 'pre')
    sg_by_fork = {}
    for fork, d in per_fork.items():
        lst = []
        for o in d['sp'].options:
            o = dict(o)
            o['sglang_parser'] = 'rollout'
            if help_deprecation(o['help']) and not o.get('deprecated_effect'):
                o['deprecated'] = help_deprecation(o['help'])
            lst.append(o)
        for o in d['tp'].options:
            o = dict(o)
            if help_deprecation(o['help']) and not o.get('deprecated_effect'):
                o['deprecated'] = help_deprecation(o['help'])
            lst.append(o)
        sg_by_fork[fork] = lst
    sgl = merge(sg_by_fork, 'sglang')
    for o in sgl:
        if o.get('sglang_field') is None:
            continue
        # passthrough entries are identical in both forks by construction; keep "in" anyway
    options += sgl

    options = [strip_internal(o) for o in options]
    options.sort(key=opt_key)

    dropped = {}
    for fork, d in per_fork.items():
        for x in d['dropped']:
            for n in x['names']:
                dropped.setdefault(n, set()).add(fork)
    dropped_list = sorted(dropped)

    # Prefix hazards: with allow_abbrev=True the sglang parsers accept any unique prefix of
    # their options, so a token meant for another parser that is a strict prefix of one of
    # them is taken by it (or is an "ambiguous option" error).
    prefix_hazards = []
    all_names = {n: o for o in options for n in o['names']}
    for fork, d in per_fork.items():
        sg_names = [n for o in d['sp'].options for n in o['names']]
        tnames = [n for o in d['tp'].options for n in o['names']]
        temp = ['--rollout-num-gpus-per-engine', '--sglang-pp-size', '--sglang-pipeline-parallel-size']
        for o in options:
            if fork not in o.get('in', [fork]):
                continue
            for n in o['names']:
                for pname, pool in (('sglang', sg_names), ('teacher_sglang', tnames), ('sglang_parse_args temp parser', temp)):
                    hits = sorted(x for x in pool if x != n and x.startswith(n))
                    if hits and n not in pool:
                        prefix_hazards.append({'in': fork, 'token': n, 'parser': pname,
                                               'matches': hits[:5], 'count': len(hits),
                                               'effect': 'ambiguous option error (exit 2)' if len(hits) > 1 else
                                               f'taken as {hits[0]} by that parser'})
        for dn in sorted(dropped):
            hits = sorted(x for x in sg_names if x != dn and x.startswith(dn))
            if hits:
                prefix_hazards.append({'in': fork, 'token': dn, 'parser': 'sglang', 'matches': hits[:5],
                                       'count': len(hits), 'dropped_name': True,
                                       'effect': 'ambiguous option error (exit 2)' if len(hits) > 1 else
                                       f'taken as {hits[0]} by that parser'})
    seen_h = set()
    ph = []
    for h in sorted(prefix_hazards, key=lambda h: (h['token'], h['parser'], h['in'])):
        k = (h['token'], h['parser'], h['in'])
        if k not in seen_h:
            seen_h.add(k)
            ph.append(h)

    # namespace merge: pre, then sglang, then teacher namespaces are setattr()ed over the main
    # one, so a dest present in both silently takes the sglang parser's value (or default)
    overwrites = {}
    for fork, d in per_fork.items():
        main_dests = {o['dest'] for o in d['rp'].options}
        for o in d['sp'].options + d['tp'].options:
            if o['dest'] in main_dests and not (isinstance(o['default'], dict) and o['default'].get('suppress')):
                overwrites.setdefault(o['dest'], []).append(fork)
        for k in d['sdefs']:
            if k in main_dests:
                overwrites.setdefault(k, []).append(fork + ' (set_defaults)')
    counts = {}
    for o in options:
        counts[o['parser']] = counts.get(o['parser'], 0) + 1
    notes = {
        'allow_abbrev': {'megatron+relax': False, 'pre (_pre_parse_mode)': False,
                         'sglang (sglang_parse_args)': True, 'teacher_sglang (teacher_sglang_parse_args)': True,
                         'sglang_parse_args temp parser (--rollout-num-gpus-per-engine, --sglang-pp-size, --sglang-pipeline-parallel-size)': True},
        'parse_order': ['pre: _pre_parse_mode (parse_known_args)',
                        'sglang: sglang_parse_args (temp parser, then parse_known_args) unless --debug-train-only or --load-debug-rollout-data',
                        'teacher_sglang: teacher_sglang_parse_args (parse_known_args), same condition',
                        'megatron+relax: megatron parse_args(extra_args_provider=add_slime_arguments, ignore_unknown_args=True) -> parse_known_args',
                        'merge: pre, then sglang, then teacher namespaces are setattr()ed over the main namespace',
                        'validators: slime_validate_args; megatron validate_args unless debug_rollout_only; sglang validate_args unless debug_train_only'],
        'unknown_options': 'silently dropped by every parser (all use parse_known_args)',
        'counts': dict(sorted(counts.items())),
        'sglang_partial': sg_partial,
        'sglang_partial_detail': (f'server_args.py was only read up to character {sg_cut}: ServerArgs fields after '
                                  'that point and the manual entries of ServerArgs.add_cli_args (deprecated aliases, '
                                  'dynamic-choice parsers, --config) are missing; treat an unknown --sglang-* / '
                                  '--teacher-sglang-* flag as "not in catalog", not as an error') if sg_partial else None,
        'router_args': {'calls': {f: d['rnotes']['router_args_calls'] for f, d in per_fork.items()},
                        'passthrough': {f: d['srnotes']['passthrough'] for f, d in per_fork.items()},
                        'read': router is not None,
                        'counts': {'relax (main parser)': sum(1 for o in options if o.get('router_source') and o['parser'] == 'relax'),
                                   'sglang (rollout passthrough)': sum(1 for o in options if o.get('router_source') and o['parser'] == 'sglang')},
                        'detail': ('sglang_router RouterArgs.add_cli_args adds its options to the main parser '
                                   '(use_router_prefix=True, exclude_host_port=True: --router-x, but --worker-urls '
                                   'keeps its name) and, via relax/backends/sglang/arguments.py '
                                   '_add_prefixed_router_args (argparse._ActionsContainer.add_argument patched, '
                                   'use_router_prefix=False, exclude_host_port=False), --sglang-router-x (dest '
                                   'router_x, fields in _router_passthrough_skip_fields dropped) to the sglang parser. '
                                   'The sglang namespace is merged last, so a router_x value given to the main '
                                   'parser as --router-x is overwritten by the sglang parser\'s router_x (its default '
                                   'unless --sglang-router-x is given): see namespace_overwrites. Entries carry '
                                   '"router_source": "sglang-router" (sources["sglang-router"] names the version read).')
                        if router is not None else
                        ('sglang_router RouterArgs.add_cli_args adds --router-* options to the main parser '
                         '(use_router_prefix=True, exclude_host_port=True) and, via '
                         'relax/backends/sglang/arguments.py _add_prefixed_router_args, --sglang-router-* '
                         'options to the sglang parser. Their source (the sglang_router wheel) was not read: '
                         'these names are NOT in the catalog; do not report them as unknown.')},
        'sglang_set_defaults': {f: jsonable(d['sdefs']) for f, d in per_fork.items()},
        'sglang_skip_fields': {f: sorted(d['skipped']) for f, d in per_fork.items()},
        'teacher_sglang_skip_fields': {f: sorted(d['tskip']) for f, d in per_fork.items()},
        'rejected_flags': [{'names': list(d['removed']), 'in': [f],
                            'effect': 'ValueError before parsing (_reject_removed_mtp_detach_flags checks every argv token, also --x=v)',
                            'replacement': '--mtp-detach-paths'} for f, d in per_fork.items() if d['removed']],
        'prefix_hazards': ph,
        'namespace_overwrites': {k: sorted(set(v)) for k, v in sorted(overwrites.items())},
    }
    out = {'perf_doctor_flags': SCHEMA, 'sources': sources, 'options': options,
           'dropped_sglang': dropped_list, 'notes': notes}
    write(out, a.output)
    print(f"wrote {a.output}: {len(options)} options {notes['counts']}", file=sys.stderr)


def write(out, path):
    """One option per line, keys in a fixed order."""
    keyorder = ['names', 'dest', 'parser', 'in', 'sglang_parser', 'action', 'nargs', 'type', 'choices', 'default',
                'const', 'required', 'help', 'deprecated', 'deprecated_effect', 'group', 'file', 'line']
    lines = ['{"perf_doctor_flags": %d,' % out['perf_doctor_flags']]
    lines.append(' "sources": ' + json.dumps(out['sources'], sort_keys=True, ensure_ascii=False) + ',')
    lines.append(' "options": [')
    for i, o in enumerate(out['options']):
        ordered = {k: o[k] for k in keyorder if k in o}
        for k in sorted(o):
            if k not in ordered:
                ordered[k] = o[k]
        lines.append('  ' + json.dumps(ordered, ensure_ascii=False) + (',' if i + 1 < len(out['options']) else ''))
    lines.append(' ],')
    lines.append(' "dropped_sglang": ' + json.dumps(out['dropped_sglang']) + ',')
    lines.append(' "notes": ' + json.dumps(out['notes'], sort_keys=True, ensure_ascii=False, indent=1))
    lines.append('}')
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
