import json, re, glob, collections, datetime
tools = {}
for f in glob.glob("/work/set6/tools/*.json"):
    t = json.load(open(f)); tools[t["name"]] = t
    assert t["asset_type"]=="tool" and t["tool_type"]=="http" and t["name"]+".json"==f.split("/")[-1]
    cfg = t["tool_config"]; assert re.match(r"^https://[a-z0-9.-]+\.example\.com/", cfg["url"]), cfg["url"]
    props = t["tool_input_schema"]["properties"]
    for r in t["tool_input_schema"].get("required", []): assert r in props
    # every placeholder refers to a schema property
    for ph in re.findall(r"\{\{input\.([a-zA-Z_]+)\}\}", json.dumps(cfg)): assert ph in props, (t["name"], ph)
    for k in props: assert "{{input.%s}}" % k in json.dumps(cfg), (t["name"], "unused", k)
BUILTIN = {"ci_lookup","metric_query","history_query","graph_analysis","document_search","search_vector_db","search_graph_db","code_graph"}
d = json.load(open("/work/set6/questions.json"))
datetime.datetime.fromisoformat(d["now"].replace("Z","+00:00"))
ids=set(); errs=[]
cnt = collections.Counter(); toolcnt = collections.Counter()
for x in d["questions"]:
    assert x["id"] not in ids; ids.add(x["id"])
    assert x["lang"] in ("ko","en") and x["kind"] in ("single","multi","none")
    n=len(x["tools"]); assert len(set(x["tools"]))==n
    if x["kind"]=="none": assert n==0 and not x["params"], x["id"]
    if x["kind"]=="single": assert n==1, x["id"]
    if x["kind"]=="multi": assert 2<=n<=3, x["id"]
    hangul = bool(re.search("[가-힣]", x["query"]))
    assert hangul == (x["lang"]=="ko"), (x["id"], "lang mismatch")
    for t in x["tools"]:
        assert t in tools or t in BUILTIN, (x["id"], t); toolcnt[t]+=1
    for k,v in x["params"].items():
        tn, pn = k.split(".",1)
        assert tn in x["tools"], (x["id"], k)
        assert tn in tools, (x["id"], "param on builtin", k)
        sch = tools[tn]["tool_input_schema"]["properties"].get(pn)
        if sch is None: errs.append((x["id"], k, "no such property")); continue
        ty = sch.get("type")
        if ty=="string" and not isinstance(v,str): errs.append((x["id"],k,"type"))
        if ty=="integer" and not (isinstance(v,int) and not isinstance(v,bool)): errs.append((x["id"],k,"type"))
        if ty=="boolean" and not isinstance(v,bool): errs.append((x["id"],k,"type"))
        if "enum" in sch and v not in sch["enum"]: errs.append((x["id"],k,"enum",v))
        if "pattern" in sch and not re.search(sch["pattern"], v): errs.append((x["id"],k,"pattern",v))
        if sch.get("format")=="date": datetime.date.fromisoformat(v)
        if "minimum" in sch and v < sch["minimum"]: errs.append((x["id"],k,"min"))
        if "maximum" in sch and v > sch["maximum"]: errs.append((x["id"],k,"max"))
    infra = any(t in BUILTIN for t in x["tools"])
    cnt[(x["lang"], x["kind"] + ("/builtin" if infra else ""))]+=1
print("errors:", errs)
print("total", len(d["questions"]))
for k in sorted(cnt): print(k, cnt[k])
print(collections.Counter(x["lang"] for x in d["questions"]), collections.Counter(x["kind"] for x in d["questions"]))
print(toolcnt)
# hint examples not copied
for t in tools.values():
    h=t.get("planning_hints",{}).get("examples",{})
    for lst in (h.values() if isinstance(h,dict) else [h]):
        for e in lst:
            for x in d["questions"]:
                if e.lower() in x["query"].lower() or x["query"].lower() in e.lower(): print("COPY", x["id"], e)
