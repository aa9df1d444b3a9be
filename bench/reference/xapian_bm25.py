#!/usr/bin/env python3
"""BM25 reference for the keyword branch: Xapian (Debian python3-xapian, BM25Weight by default).

Reads JSON lines on stdin: {"chunks": [[id, index_text], ...]} then {"queries": [index_text, ...]}
(both already through the project's toIndexText, so Korean arrives as the same bigrams). Indexes
in a temporary directory with the English stemmer (PostgreSQL's 'english' configuration stems with Snowball too),
then runs every query once as an OR of its terms (top 10) and prints JSON: per-query milliseconds
and result ids.
"""
import json
import shutil
import sys
import tempfile
import time

import xapian

chunks = json.loads(sys.stdin.readline())["chunks"]
queries = json.loads(sys.stdin.readline())["queries"]
k1, b = float(sys.argv[1]), float(sys.argv[2])

# A database in a temporary directory (Debian's 1.4 bindings have no in-memory backend); it is
# committed before the queries, so they read it through the page cache like the PostgreSQL side.
workdir = tempfile.mkdtemp(prefix="xapian-bm25-")
db = xapian.WritableDatabase(workdir, xapian.DB_CREATE_OR_OVERWRITE)
tg = xapian.TermGenerator()
stem = xapian.Stem("english")
tg.set_stemmer(stem)
tg.set_stemming_strategy(xapian.TermGenerator.STEM_ALL)
started = time.perf_counter()
for cid, text in chunks:
    doc = xapian.Document()
    tg.set_document(doc)
    tg.index_text(text)
    doc.set_data(cid)
    db.add_document(doc)
db.commit()
index_seconds = time.perf_counter() - started

qp = xapian.QueryParser()
qp.set_stemmer(stem)
qp.set_stemming_strategy(xapian.QueryParser.STEM_ALL)
qp.set_default_op(xapian.Query.OP_OR)
enquire = xapian.Enquire(db)
enquire.set_weighting_scheme(xapian.BM25Weight(k1, 0, 1, b, 0.5))
times, results = [], []
for q in queries:
    t = time.perf_counter()
    enquire.set_query(qp.parse_query(q, 0))
    mset = enquire.get_mset(0, 10)
    ids = [m.document.get_data().decode() for m in mset]
    times.append((time.perf_counter() - t) * 1000)
    results.append(ids)
db.close()
shutil.rmtree(workdir, ignore_errors=True)
print(json.dumps({"index_seconds": index_seconds, "times": times, "results": results}))
