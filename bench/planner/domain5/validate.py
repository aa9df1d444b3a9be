import json, glob, os, re, collections
HERE = os.path.dirname(os.path.abspath(__file__))
tools = {}
for f in glob.glob(os.path.join(HERE, 'tools/*.json')):
    t = json.load(open(f)); tools[t['name']] = t
    assert t['asset_type']=='tool' and t['tool_type']=='http'
    assert '.example.com' in t['tool_config']['url']
    props = t['tool_input_schema']['properties']
    for r in t['tool_input_schema'].get('required', []): assert r in props, (f, r)
    cfg = json.dumps(t['tool_config'])
    for p in re.findall(r'\{\{input\.(\w+)\}\}', cfg): assert p in props, (f, p)
    for p in props: assert '{{input.%s}}' % p in cfg, (f, 'unused', p)
md = open(os.path.join(HERE, 'materials/builtin-tools.md')).read()
builtins = set(re.findall(r'^## (\w+)', md, re.M))
d = json.load(open(os.path.join(HERE, 'questions.json')))
ids=set(); cnt=collections.Counter(); per_tool=collections.Counter(); errs=[]
for q in d['questions']:
    assert q['id'] not in ids; ids.add(q['id'])
    assert q['lang'] in ('ko','en') and q['kind'] in ('single','multi','none')
    n = len(q['tools'])
    if q['kind']=='none': assert n==0, q
    if q['kind']=='single': assert n==1, q
    if q['kind']=='multi': assert 2<=n<=3, q
    it = any(t in builtins for t in q['tools']) and q['kind']!='multi'
    cnt[(q['lang'], q['kind'])]+=1
    for t in q['tools']:
        assert t in tools or t in builtins, (q['id'], t)
        per_tool[t]+=1
    for k, v in q['params'].items():
        t, p = k.split('.', 1)
        assert t in q['tools'], (q['id'], k)
        assert t in tools, (q['id'], k)
        sch = tools[t]['tool_input_schema']['properties'][p]
        if 'enum' in sch: assert v in sch['enum'], (q['id'], k, v)
        if 'pattern' in sch: assert re.match(sch['pattern'], v), (q['id'], k, v)
        if sch.get('format')=='date': assert re.match(r'^2026-\d\d-\d\d$', v), (q['id'], k, v)
        ty = sch.get('type')
        if ty=='integer': assert isinstance(v,int) and not isinstance(v,bool)
        if ty=='number': assert isinstance(v,(int,float)) and not isinstance(v,bool)
        if ty=='boolean': assert isinstance(v,bool)
        if ty=='string': assert isinstance(v,str)
    # waybill/ids in params should appear literally in the query
    for k,v in q['params'].items():
        if isinstance(v,str) and re.match(r'^(NR|C|DR)\d', v): assert v in q['query'], (q['id'],k,v)
print('total', len(d['questions']))
for l in ('ko','en'):
    print(l, {k: cnt[(l,k)] for k in ('single','multi','none')})
print(dict(per_tool))
it_ids=[q['id'] for q in d['questions'] if q['kind']!='multi' and (any(t in builtins for t in q['tools']))]
print('IT builtin single:', len(it_ids))
