#!/usr/bin/env python3
# corr.py DIR [threshold_ms]: joins lat.tsv and samp.tsv per second
import sys, collections
d = sys.argv[1]; thr = float(sys.argv[2]) if len(sys.argv) > 2 else 7.0
slow = collections.Counter(); reads = collections.Counter()
for line in open(d + '/lat.tsv'):
    f = line.split()
    if not f or f[0] != 'loaded': continue
    sec = int(int(f[1]) / 1e9)
    reads[sec] += 1
    if int(f[2]) > thr * 1e6: slow[sec] += 1
rows = []
hdr = None
for line in open(d + '/samp.tsv'):
    f = line.rstrip('\n').split('\t')
    if hdr is None: hdr = f; continue
    sec = int(float(f[0])) - 1  # the sample covers the second before
    if sec not in reads: continue
    rows.append((sec, [float(x) for x in f[1:17]], f[17] if len(f) > 17 else ''))
cols = hdr[1:17]
def avg(sel):
    n = len(sel)
    return n, [sum(r[1][i] for r in sel) / max(n, 1) for i in range(len(cols))]
for name, sel in (('slow>=2', [r for r in rows if slow[r[0]] >= 2]), ('slow=1', [r for r in rows if slow[r[0]] == 1]), ('none', [r for r in rows if slow[r[0]] == 0])):
    n, a = avg(sel)
    print("%-8s n=%4d " % (name, n) + " ".join("%s=%.0f" % (c, v) for c, v in zip(cols, a)))
if len(sys.argv) > 3:
    for r in rows:
        if slow[r[0]] >= 2:
            print(r[0], slow[r[0]], " ".join("%s=%.0f" % (c, v) for c, v in zip(cols, r[1])), r[2])
