import sys,re
d=sys.argv[1]; thr=float(sys.argv[2]) if len(sys.argv)>2 else 6.6
g=open(d+'/p/trace.out.gc').read().split('\n')
off=int(g[0].split()[1]); iv=[]; b=None
for l in g[1:]:
    if not l: continue
    k,t=l.split(); t=int(t)+off
    if k=='B': b=t
    elif b is not None: iv.append((b,t)); b=None
t0,t1=iv[0][0]-1e9, iv[-1][1]+1e9
tot=sum(e-s for s,e in iv)
print("mark phases:",len(iv),"mark time %.2fs of window %.1fs"%(tot/1e9,(iv[-1][1]-iv[0][0])/1e9))
reads=[]
for line in open(d+'/lat.tsv'):
    f=line.split()
    if f[0]!='loaded': continue
    s=int(f[1]); lat=int(f[2])
    if s<iv[0][0] or s>iv[-1][1]: continue
    ov=any(a< s+lat and s< e for a,e in iv)
    reads.append((lat>thr*1e6, ov))
import collections
c=collections.Counter(reads)
print("reads in window:",len(reads)," slow&overlapGC:",c[(True,True)]," slow&noGC:",c[(True,False)]," fast&GC:",c[(False,True)]," fast&noGC:",c[(False,False)])
