#!/usr/bin/env python3
# join.py DIR [thr_ms]: slow loaded reads with the server's request log
import sys, re, collections
d=sys.argv[1]; thr=float(sys.argv[2]) if len(sys.argv)>2 else 6.6
srv={}
for line in open(d+'/out.txt'):
    if 'msg=request' not in line: continue
    m=re.search(r' id=(\S+)',line)
    if not m: continue
    f=dict(re.findall(r' (ms|read_ms|admit_wait_ms|slot_wait_ms|body_ms|accept_ms|read_unix_us)=([0-9.]+)',line))
    srv[m.group(1)]=f
rows=[]
byq=collections.Counter(); allq=collections.Counter()
for line in open(d+'/lat.tsv'):
    f=line.split()
    if f[0]!='loaded': continue
    lat=int(f[2])/1e6; q=f[3]; allq[q]+=1
    if lat<=thr: continue
    byq[q]+=1
    s=srv.get(f[4],{})
    start=int(f[1])
    rd=int(s['read_unix_us'])*1000-start if 'read_unix_us' in s else -1
    rows.append((lat, q, float(s.get('ms',-1)), float(s.get('read_ms',-1)), float(s.get('admit_wait_ms',0)), float(s.get('body_ms',0)), rd/1e6, int(f[7])/1e6, int(f[8])/1e6))
print("slow by query:", dict(byq), "of", dict(allq))
print("lat  q  srv_ms read_ms admit body  hdr_read_at  wrote_at firstbyte_at")
for r in sorted(rows):
    print("%6.1f %2s %6.1f %6.2f %6.2f %6.2f %8.2f %8.2f %8.2f"%r)
# summary: slow part in server handler vs outside
ins=sum(1 for r in rows if r[2]>=thr*0.6)
print("slow reads:",len(rows),"server ms >= 60%% of thr: %d"%ins)
