#!/usr/bin/env python3
"""Validate the held-out domain-4 set: tools/*.json, questions.json (stdlib only).

Usage: python3 validate.py [--builtins PATH]
Exit code 0 when every check passes, 1 otherwise.
"""
import difflib
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BUILTINS = os.path.join(HERE, "..", "materials", "builtin-tools.json")
HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
TOOL_KEYS = {"asset_type", "name", "description", "tool_type", "tool_config",
             "tool_input_schema", "has_side_effects", "planning_hints"}
KINDS = {"single", "multi", "none"}
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

errors = []


def err(msg):
    errors.append(msg)


# ---------------------------------------------------------------- schema check
def type_ok(value, t):
    if isinstance(t, list):
        return any(type_ok(value, x) for x in t)
    if t == "string":
        return isinstance(value, str)
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if t == "boolean":
        return isinstance(value, bool)
    if t == "array":
        return isinstance(value, list)
    if t == "object":
        return isinstance(value, dict)
    if t == "null":
        return value is None
    return True


def check_value(value, schema, where):
    """Return a list of problems of value against a (subset of) JSON Schema."""
    probs = []
    if not isinstance(schema, dict):
        return probs
    if "anyOf" in schema:
        if not any(not check_value(value, s, where) for s in schema["anyOf"]):
            probs.append(f"{where}: {value!r} matches no anyOf branch")
        return probs
    if "type" in schema and not type_ok(value, schema["type"]):
        return [f"{where}: {value!r} is not of type {schema['type']}"]
    if "enum" in schema and value not in schema["enum"]:
        probs.append(f"{where}: {value!r} not in enum {schema['enum']}")
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            probs.append(f"{where}: {value!r} does not match {schema['pattern']}")
        if schema.get("format") == "date" and not DATE_RE.match(value):
            probs.append(f"{where}: {value!r} is not YYYY-MM-DD")
        if "minLength" in schema and len(value) < schema["minLength"]:
            probs.append(f"{where}: too short")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            probs.append(f"{where}: too long")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            probs.append(f"{where}: {value} < minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            probs.append(f"{where}: {value} > maximum {schema['maximum']}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            probs += check_value(item, schema["items"], f"{where}[{i}]")
    if isinstance(value, dict) and "properties" in schema:
        props = schema["properties"]
        for k, v in value.items():
            if k not in props:
                if schema.get("additionalProperties") is False:
                    probs.append(f"{where}: unknown key {k!r}")
                continue
            probs += check_value(v, props[k], f"{where}.{k}")
    return probs


def iter_hint_texts(hints, key):
    v = (hints or {}).get(key)
    if isinstance(v, list):
        yield from v
    elif isinstance(v, dict):
        for lst in v.values():
            yield from lst


# ---------------------------------------------------------------- tools
def load_tools():
    tools = {}
    files = sorted(glob.glob(os.path.join(HERE, "tools", "*.json")))
    if not files:
        err("no tool files in tools/")
    for f in files:
        try:
            t = json.load(open(f, encoding="utf-8"))
        except Exception as e:  # noqa: BLE001
            err(f"{f}: JSON does not parse: {e}")
            continue
        base = os.path.basename(f)[:-5]
        if set(t) != TOOL_KEYS:
            err(f"{base}: top-level keys {sorted(t)} != {sorted(TOOL_KEYS)}")
        if t.get("asset_type") != "tool" or t.get("tool_type") != "http":
            err(f"{base}: asset_type/tool_type wrong")
        name = t.get("name", "")
        if name != base or not re.match(r"^[a-z][a-z0-9_]*$", name):
            err(f"{base}: name {name!r} must be snake_case and match the file name")
        cfg = t.get("tool_config", {})
        if cfg.get("method") not in {"GET", "POST", "PUT", "PATCH", "DELETE"}:
            err(f"{name}: bad method")
        url = cfg.get("url", "")
        m = re.match(r"^https?://([^/:{}]+)", url)
        if not m or not m.group(1).endswith(".example.com"):
            err(f"{name}: url host must be under *.example.com: {url}")
        schema = t.get("tool_input_schema", {})
        props = schema.get("properties", {})
        if schema.get("type") != "object" or not props:
            err(f"{name}: tool_input_schema must be an object schema with properties")
        for r in schema.get("required", []):
            if r not in props:
                err(f"{name}: required {r!r} not in properties")
        for pn, ps in props.items():
            if "type" not in ps:
                err(f"{name}.{pn}: no type")
            if "pattern" in ps:
                re.compile(ps["pattern"])
        used = set(re.findall(r"\{\{input\.([A-Za-z0-9_]+)", json.dumps(cfg)))
        for u in used - set(props):
            err(f"{name}: placeholder input.{u} not in schema")
        for pn in set(props) - used:
            err(f"{name}: schema property {pn} is never sent")
        if not isinstance(t.get("has_side_effects"), bool):
            err(f"{name}: has_side_effects must be boolean")
        hints = t.get("planning_hints")
        if not isinstance(hints, dict):
            err(f"{name}: planning_hints must be an object")
        tools[name] = {"schema": schema, "hints": hints or {}, "side": t.get("has_side_effects")}
    n_side = sum(1 for x in tools.values() if x["side"])
    if len(tools) != 7:
        err(f"expected 7 tools, found {len(tools)}")
    if not 1 <= n_side <= 2:
        err(f"expected 1-2 side-effect tools, found {n_side}")
    return tools


def load_builtins(path):
    try:
        data = json.load(open(path, encoding="utf-8"))
    except Exception as e:  # noqa: BLE001
        err(f"builtins {path}: {e}")
        return {}
    return {b["name"]: {"schema": b["input_schema"], "hints": {}} for b in data}


# ---------------------------------------------------------------- questions
def main():
    bpath = DEFAULT_BUILTINS
    if "--builtins" in sys.argv:
        bpath = sys.argv[sys.argv.index("--builtins") + 1]
    own = load_tools()
    builtins = load_builtins(bpath)
    clash = set(own) & set(builtins)
    if clash:
        err(f"tool names clash with builtins: {clash}")
    alltools = {**builtins, **own}

    try:
        doc = json.load(open(os.path.join(HERE, "questions.json"), encoding="utf-8"))
    except Exception as e:  # noqa: BLE001
        err(f"questions.json does not parse: {e}")
        return report(None)
    for k in ("now", "domain", "written_by", "questions"):
        if k not in doc:
            err(f"questions.json: missing {k}")
    qs = doc.get("questions", [])
    ids = set()
    for q in qs:
        qid = q.get("id", "?")
        if set(q) != {"id", "lang", "kind", "query", "tools", "params"}:
            err(f"{qid}: keys {sorted(q)}")
        if qid in ids:
            err(f"{qid}: duplicate id")
        ids.add(qid)
        lang, kind, text = q.get("lang"), q.get("kind"), q.get("query", "")
        tools, params = q.get("tools", []), q.get("params", {})
        if lang not in ("ko", "en"):
            err(f"{qid}: lang {lang!r}")
        has_h = bool(HANGUL.search(text))
        if lang == "ko" and not has_h:
            err(f"{qid}: Korean query without Hangul")
        if lang == "en" and has_h:
            err(f"{qid}: English query contains Hangul")
        if kind not in KINDS:
            err(f"{qid}: kind {kind!r}")
        n = len(tools)
        if (kind == "single" and n != 1) or (kind == "multi" and n < 2) or (kind == "none" and n != 0):
            err(f"{qid}: kind {kind} but {n} tools")
        if len(set(tools)) != n:
            err(f"{qid}: repeated tool")
        for t in tools:
            if t not in alltools:
                err(f"{qid}: unknown tool {t}")
        if not isinstance(params, dict):
            err(f"{qid}: params must be an object")
            continue
        for key, val in params.items():
            tool, _, pname = key.partition(".")
            if tool not in tools:
                err(f"{qid}: param {key} names a tool not in tools")
                continue
            if tool not in alltools:
                continue
            props = alltools[tool]["schema"].get("properties", {})
            if pname not in props:
                err(f"{qid}: {pname!r} is not a property of {tool}")
                continue
            for p in check_value(val, props[pname], f"{qid}:{key}"):
                err(p)

    # near duplicates among queries
    texts = [(q.get("id"), q.get("query", "")) for q in qs]
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            r = difflib.SequenceMatcher(None, texts[i][1].lower(), texts[j][1].lower()).ratio()
            if r > 0.75:
                err(f"near-duplicate {texts[i][0]} / {texts[j][0]} ({r:.2f})")
    # closeness to planning hints examples
    hint_ex = []
    for name, t in own.items():
        for ex in iter_hint_texts(t["hints"], "examples"):
            hint_ex.append((name, ex))
    for qid, text in texts:
        for name, ex in hint_ex:
            r = difflib.SequenceMatcher(None, text.lower(), ex.lower()).ratio()
            if r > 0.7:
                err(f"{qid} too close to {name} hint example {ex!r} ({r:.2f})")
    return report(qs)


def report(qs):
    if qs is not None:
        from collections import Counter
        c = Counter((q.get("lang"), q.get("kind")) for q in qs)
        print(f"questions: {len(qs)}  " + ", ".join(f"{l}/{k}={c[(l, k)]}" for l in ("ko", "en")
                                                   for k in ("single", "multi", "none")))
    if errors:
        for e in errors:
            print("FAIL", e)
        print(f"{len(errors)} problem(s)")
        return 1
    print("OK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
