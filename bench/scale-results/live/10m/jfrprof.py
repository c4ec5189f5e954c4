#!/usr/bin/env python3
"""Aggregates jdk.ExecutionSample events of a JFR recording (as `jfr print` text)
in a time window: top self frames and top inclusive frames, share of samples.
usage: jfr print --events jdk.ExecutionSample --stack-depth 64 F.jfr | jfrprof.py HH:MM:SS HH:MM:SS [thread-substring]"""
import sys, re, collections
lo, hi = sys.argv[1], sys.argv[2]
thr = sys.argv[3] if len(sys.argv) > 3 else None
selfc, incl, threads = collections.Counter(), collections.Counter(), collections.Counter()
total = 0
cur = None
def flush(s):
    global total
    if s is None or s['t'] is None: return
    if not (lo <= s['t'] <= hi): return
    if thr and thr not in s['thread']: return
    total += 1
    threads[re.sub(r'[-#]?\d+', '', s['thread'])[:40]] += 1
    fr = s['frames']
    if fr: selfc[fr[0]] += 1
    for f in set(fr): incl[f] += 1
for line in sys.stdin:
    line = line.rstrip()
    if line.startswith('jdk.ExecutionSample'):
        flush(cur); cur = {'t': None, 'thread': '', 'frames': []}; infr = False; continue
    if cur is None: continue
    m = re.match(r'\s+startTime = (\d\d:\d\d:\d\d)', line)
    if m: cur['t'] = m.group(1); continue
    m = re.match(r'\s+sampledThread = "([^"]*)"', line)
    if m: cur['thread'] = m.group(1); continue
    if re.match(r'\s+stackTrace = \[', line): infr = True; continue
    if infr:
        if re.match(r'\s+\]', line) or line.strip() == '...': infr = False if line.strip() != '...' else infr; continue
        f = re.sub(r'\s+line:.*$', '', line.strip())
        f = re.sub(r'\(.*\)$', '', f)
        cur['frames'].append(f)
flush(cur)
print(f"samples {total} in {lo}-{hi}" + (f" thread~{thr}" if thr else ""))
print("threads:", ", ".join(f"{k} {v}" for k, v in threads.most_common(8)))
print("\nself (top 30):")
for f, c in selfc.most_common(30): print(f"  {100*c/max(total,1):5.1f}%  {f}")
print("\ninclusive (top 60):")
for f, c in incl.most_common(60): print(f"  {100*c/max(total,1):5.1f}%  {f}")
