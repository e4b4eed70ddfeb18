"""Decode the profile embedded in an HTML report written by sfconv (the
layout fmt_html.c documents), independently of the page's script, and
print it as JSON: the header fields, "stk" as [parent, name] per node from
1, and "w" (and "b") as {node: weight}, "tracks" per thread as
[time, stack node, 1 + state index].  Usage: data.py PAGE.html [KEY]
prints the whole object, or only its field KEY."""
import base64
import gzip
import json
import re
import struct
import sys

page = open(sys.argv[1], encoding='utf-8').read()
m = re.search(r'<script id="sf-data" type="application/gzip\+base64">([A-Za-z0-9+/=]*)</script>', page)
raw = gzip.decompress(base64.b64decode(m.group(1)))
jl = struct.unpack('<I', raw[:4])[0]
d = json.loads(raw[4:4 + jl].decode('utf-8'))
pos = 4 + jl


def varint():
    global pos
    r, shift = 0, 0
    while True:
        b = raw[pos]
        pos += 1
        r |= (b & 127) << shift
        shift += 7
        if not b & 128:
            return r


d['stk'] = []
for i in range(1, d['n']):
    delta = varint()
    d['stk'].append([i - delta, varint()])


def weights():
    global pos
    w, at = {}, 0
    for _ in range(varint()):
        at += varint()
        t = varint()
        if t == 1:
            w[at] = struct.unpack('<d', raw[pos:pos + 8])[0]
            pos += 8
        else:
            zz = t // 2
            w[at] = -(zz + 1) // 2 if zz % 2 else zz // 2
    return w


d['w'] = weights()
if d['diff']:
    d['b'] = weights()
if 'threads' in d:
    d['tracks'] = []
    for _ in d['threads']:
        track, t = [], d['t0']
        for _ in range(varint()):
            t += varint()
            track.append([t, varint(), varint()])
        d['tracks'].append(track)
if pos != len(raw):
    sys.exit('data.py: %d bytes left over' % (len(raw) - pos))
print(json.dumps(d.get(sys.argv[2]) if len(sys.argv) > 2 else d, sort_keys=True))
