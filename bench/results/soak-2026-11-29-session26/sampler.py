#!/usr/bin/env python3
# samples system and per-process CPU and run delay every second until killed
import os, time, sys
out = open(sys.argv[1], 'w')
HZ = os.sysconf('SC_CLK_TCK')
def procs():
    r = {}
    for p in os.listdir('/proc'):
        if not p.isdigit(): continue
        try:
            cmd = open(f'/proc/{p}/cmdline','rb').read().replace(b'\0',b' ').decode(errors='replace')
            st = open(f'/proc/{p}/stat').read()
            f = st[st.rindex(')')+2:].split()
            cpu = int(f[11]) + int(f[12])
            rd = 0
            try:
                for t in os.listdir(f'/proc/{p}/task'):
                    rd += int(open(f'/proc/{p}/task/{t}/schedstat').read().split()[1])
            except Exception: pass
            r[int(p)] = (cmd, cpu, rd)
        except Exception: pass
    return r
def cls(cmd):
    if 'sensor-listen' in cmd: return 'server'
    if '-role readers' in cmd: return 'readers'
    if 'soak' in cmd: return 'soak'
    return 'other'
def stat():
    return [int(x) for x in open('/proc/stat').readline().split()[1:9]]
ps, s0 = procs(), stat()
out.write("t\tuser\tnice\tsys\tidle\tiow\tirq\tsoftirq\tsteal\tserver_cpu\tserver_rd\treaders_cpu\treaders_rd\tsoak_cpu\tsoak_rd\tother_cpu\tother_rd\ttop_other\n")
while True:
    time.sleep(1)
    p2, s1 = procs(), stat()
    d = [b-a for a,b in zip(s0,s1)]
    agg = {k:[0,0] for k in ('server','readers','soak','other')}
    top = []
    for pid,(cmd,cpu,rd) in p2.items():
        if pid in ps and ps[pid][0]==cmd:
            dc, dr = cpu-ps[pid][1], rd-ps[pid][2]
        else:
            dc, dr = 0, 0
        c = cls(cmd)
        agg[c][0]+=dc; agg[c][1]+=dr
        if c=='other' and dc>0: top.append((dc, cmd[:40]))
    top.sort(reverse=True)
    out.write("%.1f\t%s\t%s\t%s\n" % (time.time(), "\t".join(map(str,d)), "\t".join("%d\t%.1f"%(agg[k][0]*1000//HZ, agg[k][1]/1e6) for k in ('server','readers','soak','other')), ";".join("%d:%s"%(a,b) for a,b in top[:3])))
    out.flush()
    ps, s0 = p2, s1
