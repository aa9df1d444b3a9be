#!/usr/bin/python3
"""Validate the held-out set: tool assets in tools/, questions.json, against materials/builtin-tools.md.

Run: /usr/bin/python3 validate.py   (exit 0 = pass; prints the errors and a summary otherwise)
"""
import datetime as dt
import difflib
import json
import os
import re
import sys
from urllib.parse import urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
errors = []


def err(where, msg):
    errors.append(f"{where}: {msg}")


HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
PLACEHOLDER = re.compile(r"\{\{\s*([^}]*?)\s*\}\}")
ALLOWED_CTX = {"context.user_id", "context.tenant_id", "secret"}
JSON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "array": list, "object": dict}
LANGS = ("ko", "en")
HINT_KEYS = {"examples", "keywords", "not_for", "intent"}


def builtin_names():
    names = []
    with open(os.path.join(HERE, "materials", "builtin-tools.md"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^##\s+([a-z_][a-z0-9_]*)\s*$", line)
            if m:
                names.append(m.group(1))
    return names


def walk_strings(node, path=""):
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from walk_strings(v, f"{path}.{k}" if path else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk_strings(v, f"{path}[{i}]")


def type_ok(value, typ):
    if typ in ("integer", "number") and isinstance(value, bool):
        return False
    if typ == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, JSON_TYPES[typ])


def check_value(where, value, spec):
    """Check a value against a (flat) JSON-schema property spec."""
    typ = spec.get("type")
    if typ not in JSON_TYPES:
        err(where, f"schema type {typ!r} unsupported")
        return
    if not type_ok(value, typ):
        err(where, f"value {value!r} is not of type {typ}")
        return
    if "enum" in spec and value not in spec["enum"]:
        err(where, f"value {value!r} not in enum {spec['enum']}")
    if typ == "string":
        if "pattern" in spec and not re.search(spec["pattern"], value):
            err(where, f"value {value!r} does not match pattern {spec['pattern']}")
        if spec.get("format") == "date":
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                err(where, f"value {value!r} is not YYYY-MM-DD")
            else:
                try:
                    dt.date.fromisoformat(value)
                except ValueError:
                    err(where, f"value {value!r} is not a real date")
        if "maxLength" in spec and len(value) > spec["maxLength"]:
            err(where, "value longer than maxLength")
        if not value.strip():
            err(where, "empty string value")
    if typ in ("integer", "number"):
        if "minimum" in spec and value < spec["minimum"]:
            err(where, f"value {value} < minimum {spec['minimum']}")
        if "maximum" in spec and value > spec["maximum"]:
            err(where, f"value {value} > maximum {spec['maximum']}")


def hint_lists(field):
    """planning_hints field: a list, or {lang: list}; yields (lang or None, item)."""
    if isinstance(field, list):
        for x in field:
            yield None, x
    elif isinstance(field, dict):
        for lang, lst in field.items():
            for x in lst if isinstance(lst, list) else []:
                yield lang, x


# ---------------------------------------------------------------- tools
def load_tools():
    tools = {}
    tdir = os.path.join(HERE, "tools")
    files = sorted(f for f in os.listdir(tdir) if f.endswith(".json"))
    for fn in files:
        where = f"tools/{fn}"
        try:
            with open(os.path.join(tdir, fn), encoding="utf-8") as f:
                t = json.load(f)
        except Exception as e:  # noqa: BLE001
            err(where, f"invalid JSON: {e}")
            continue
        name = t.get("name")
        if t.get("asset_type") != "tool":
            err(where, "asset_type must be 'tool'")
        if t.get("tool_type") != "http":
            err(where, "tool_type must be 'http'")
        if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            err(where, f"bad name {name!r}")
            continue
        if fn != f"{name}.json":
            err(where, f"file name does not match name {name!r}")
        if name in tools:
            err(where, f"duplicate tool name {name}")
        if not isinstance(t.get("description"), str) or len(t["description"].strip()) < 10:
            err(where, "description missing or too short")

        schema = t.get("tool_input_schema") or {}
        props = schema.get("properties")
        if schema.get("type") != "object" or not isinstance(props, dict) or not props:
            err(where, "tool_input_schema must be an object schema with properties")
            props = {}
        req = schema.get("required", [])
        if not isinstance(req, list):
            err(where, "required must be a list")
            req = []
        for r in req:
            if r not in props:
                err(where, f"required {r!r} is not a property")
        for pname, spec in props.items():
            pw = f"{where} property {pname}"
            if spec.get("type") not in JSON_TYPES:
                err(pw, f"type {spec.get('type')!r} missing/unsupported")
                continue
            if "enum" in spec:
                if not isinstance(spec["enum"], list) or not spec["enum"] or len(set(spec["enum"])) != len(spec["enum"]):
                    err(pw, "enum must be a non-empty list of distinct values")
                else:
                    for v in spec["enum"]:
                        if not type_ok(v, spec["type"]):
                            err(pw, f"enum value {v!r} is not {spec['type']}")
            if "pattern" in spec:
                try:
                    re.compile(spec["pattern"])
                except re.error as e:
                    err(pw, f"pattern does not compile: {e}")
            if "format" in spec and spec["format"] not in ("date", "date-time", "email"):
                err(pw, f"unknown format {spec['format']}")
            if "default" in spec:
                check_value(f"{pw} default", spec["default"], spec)

        cfg = t.get("tool_config") or {}
        method = str(cfg.get("method", "")).upper()
        if method not in ("GET", "POST", "PUT", "PATCH", "DELETE"):
            err(where, f"tool_config.method {method!r} invalid")
        url = cfg.get("url", "")
        parts = urlsplit(url)
        if parts.scheme != "https" or not re.fullmatch(r"[a-z0-9-]+\.example\.com", parts.hostname or ""):
            err(where, f"url must be https://<host>.example.com/..., got {url!r}")
        if PLACEHOLDER.search(parts.netloc or ""):
            err(where, "placeholder in scheme/host/port")
        used = set()
        for path, s in walk_strings({k: cfg.get(k) for k in ("url", "query", "headers", "body") if k in cfg}):
            for ph in PLACEHOLDER.findall(s):
                if ph.startswith("input."):
                    top = ph[len("input."):].split(".")[0]
                    if top not in props:
                        err(where, f"placeholder {{{{{ph}}}}} at {path} has no schema property")
                    used.add(top)
                elif ph not in ALLOWED_CTX:
                    err(where, f"unknown placeholder {{{{{ph}}}}} at {path}")
                if ph == "secret" and not str(cfg.get("secret_ref", "")).startswith(("secret:", "env:OPS_SECRET_")):
                    err(where, "{{secret}} used without a valid secret_ref")
        for pname in props:
            if pname not in used:
                err(where, f"property {pname!r} has no {{{{input.{pname}}}}} placeholder")
        se = t.get("has_side_effects")
        if se is not None and not isinstance(se, bool):
            err(where, "has_side_effects must be a boolean")
        effective_se = se if isinstance(se, bool) else method != "GET"
        if method == "GET" and se is True:
            err(where, "GET tool marked with side effects")

        hints = t.get("planning_hints")
        if hints is not None:
            if not isinstance(hints, dict) or not set(hints) <= HINT_KEYS:
                err(where, f"planning_hints keys must be within {sorted(HINT_KEYS)}")
            else:
                for key in ("examples", "keywords", "not_for"):
                    if key in hints:
                        field = hints[key]
                        if isinstance(field, dict) and not set(field) <= set(LANGS):
                            err(where, f"planning_hints.{key} languages must be ko/en")
                        for lang, item in hint_lists(field):
                            if not isinstance(item, str) or not item.strip():
                                err(where, f"planning_hints.{key} has a non-string/empty item")
                            elif lang == "ko" and not HANGUL.search(item) and key != "keywords":
                                err(where, f"planning_hints.{key}.ko item without Hangul: {item!r}")
                            elif lang == "en" and HANGUL.search(item):
                                err(where, f"planning_hints.{key}.en item with Hangul: {item!r}")
        tools[name] = {"props": props, "required": req, "side_effects": effective_se,
                       "hints": hints or {}, "description": t.get("description", "")}
    return tools


# ---------------------------------------------------------------- questions
def norm(s):
    return re.sub(r"[\s\W_]+", "", s.lower())


def check_questions(tools, builtins):
    with open(os.path.join(HERE, "questions.json"), encoding="utf-8") as f:
        data = json.load(f)
    try:
        dt.datetime.fromisoformat(data["now"].replace("Z", "+00:00"))
    except Exception:  # noqa: BLE001
        err("questions.json", "now is not an ISO time")
    qs = data.get("questions")
    if not isinstance(qs, list):
        err("questions.json", "questions must be a list")
        return []
    known = set(tools) | set(builtins)
    hint_texts = [(n, x) for n, t in tools.items()
                  for key in ("examples", "not_for") for _, x in hint_lists(t["hints"].get(key, []))]
    seen_ids, seen_q = set(), {}
    for q in qs:
        qid = q.get("id", "?")
        where = f"question {qid}"
        if set(q) != {"id", "lang", "kind", "query", "tools", "params"}:
            err(where, f"keys must be id/lang/kind/query/tools/params, got {sorted(q)}")
        if not re.fullmatch(r"q\d{3}", str(qid)):
            err(where, "id must be q###")
        if qid in seen_ids:
            err(where, "duplicate id")
        seen_ids.add(qid)
        query = q.get("query", "")
        if not isinstance(query, str) or not query.strip():
            err(where, "empty query")
            continue
        n = norm(query)
        if n in seen_q:
            err(where, f"duplicate query of {seen_q[n]}")
        seen_q[n] = qid
        lang = q.get("lang")
        if lang not in LANGS:
            err(where, f"lang {lang!r}")
        elif (lang == "ko") != bool(HANGUL.search(query)):
            err(where, f"lang {lang} but Hangul present={bool(HANGUL.search(query))}")
        qtools = q.get("tools")
        if not isinstance(qtools, list) or len(set(qtools)) != len(qtools):
            err(where, "tools must be a list of distinct names")
            qtools = []
        for tn in qtools:
            if tn not in known:
                err(where, f"unknown tool {tn!r}")
        kind = q.get("kind")
        expected = {0: "none", 1: "single"}.get(len(qtools), "multi" if 2 <= len(qtools) <= 3 else None)
        if kind != expected:
            err(where, f"kind {kind!r} does not fit {len(qtools)} tool(s)")
        params = q.get("params")
        if not isinstance(params, dict):
            err(where, "params must be an object")
            params = {}
        if kind == "none" and params:
            err(where, "kind none must have empty params")
        for key, value in params.items():
            tn, _, pn = key.partition(".")
            if tn not in qtools:
                err(where, f"param {key}: tool {tn!r} not in the question's tools")
            elif tn in builtins:
                err(where, f"param {key}: no params for built-in tools")
            elif pn not in tools[tn]["props"]:
                err(where, f"param {key}: {tn} has no property {pn!r}")
            else:
                check_value(f"{where} param {key}", value, tools[tn]["props"][pn])
        # never copy a hint example / not_for or the description wording
        for tn, text in hint_texts:
            r = difflib.SequenceMatcher(None, norm(query), norm(text)).ratio()
            if r >= 0.7:
                err(where, f"too close to a hint of {tn} ({r:.2f}): {text!r}")
        for tn, t in tools.items():
            d = norm(t["description"])
            words = query.split()
            for i in range(len(words) - 3):
                chunk = norm(" ".join(words[i:i + 4]))
                if len(chunk) >= 12 and chunk in d:
                    err(where, f"copies description wording of {tn}: {' '.join(words[i:i + 4])!r}")
    return qs


def summary(qs, tools, builtins):
    kinds = ("single", "multi", "none")
    print(f"{len(tools)} tools: " + ", ".join(
        f"{n}{' (side effects)' if t['side_effects'] else ''}{' +hints' if t['hints'] else ''}" for n, t in tools.items()))
    print(f"{len(qs)} questions")
    print(f"{'':6}" + "".join(f"{k:>8}" for k in kinds) + f"{'total':>8}")
    for lang in LANGS:
        row = [sum(1 for q in qs if q.get("lang") == lang and q.get("kind") == k) for k in kinds]
        print(f"{lang:6}" + "".join(f"{c:>8}" for c in row) + f"{sum(row):>8}")
    bi = [q for q in qs if any(t in builtins for t in q.get("tools", []))]
    print(f"questions answered by built-in tools: {len(bi)} "
          f"(ko {sum(q['lang'] == 'ko' for q in bi)}, en {sum(q['lang'] == 'en' for q in bi)})")
    use = {n: 0 for n in tools}
    for q in qs:
        for t in q.get("tools", []):
            if t in use:
                use[t] += 1
    print("questions per own tool: " + ", ".join(f"{n} {c}" for n, c in use.items()))
    for n, c in use.items():
        if c == 0:
            err("coverage", f"tool {n} appears in no question")
    total = len(qs) or 1
    for k in kinds:
        print(f"  {k}: {sum(q.get('kind') == k for q in qs) / total:.0%}")


def main():
    builtins = builtin_names()
    if not builtins:
        err("materials/builtin-tools.md", "no built-in tool names found")
    tools = load_tools()
    if len(tools) != 7:
        err("tools", f"expected 7 tools, found {len(tools)}")
    for n in tools:
        if n in builtins:
            err("tools", f"{n} shadows a built-in tool")
    qs = check_questions(tools, builtins)
    if len(qs) < 110:
        err("questions.json", f"only {len(qs)} questions (need >= 110)")
    summary(qs, tools, builtins)
    if errors:
        print(f"\nFAIL: {len(errors)} error(s)")
        for e in errors:
            print("  " + e)
        sys.exit(1)
    print("\nOK")


if __name__ == "__main__":
    main()
