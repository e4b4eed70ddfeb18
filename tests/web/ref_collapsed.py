#!/usr/bin/env python3
"""Independent reference readers for the tests: print the collapsed stacks
(`root;...;leaf COUNT`, bytewise sorted, equal stacks summed) of a V8
.cpuprofile or a Firefox processed profile, written from the format
documentation without looking at sftools' C readers.

usage: ref_collapsed.py cpuprofile FILE | firefox-processed FILE |
       trace-samples FILE   (V8 ProfileChunk samples of a Chrome trace)"""
import json
import sys
from collections import defaultdict


def clean(name):
    return name.replace(';', ':').replace('\n', ' ').replace('\r', ' ').replace('\t', ' ')


def emit(totals):
    out = sys.stdout.buffer
    for stack in sorted(totals, key=lambda s: s.encode('utf-8')):
        w = totals[stack]
        w = int(w) if w == int(w) else w
        out.write(('%s %s\n' % (stack, w)).encode('utf-8'))


def cpuprofile(path):
    prof = json.load(open(path, encoding='utf-8'))
    nodes = {n['id']: n for n in prof['nodes']}
    parent = {}
    for n in prof['nodes']:
        for c in n.get('children', []):
            parent[c] = n['id']
        if 'parent' in n:
            parent[n['id']] = n['parent']
    totals = defaultdict(float)
    for s in prof['samples']:
        names = []
        while s is not None:
            fn = nodes[s]['callFrame']['functionName']
            if not (fn == '(root)' and s not in parent):
                names.append(clean(fn or '(anonymous)'))
            s = parent.get(s)
        totals[';'.join(reversed(names))] += 1
    emit(totals)


def firefox_processed(path):
    prof = json.load(open(path, encoding='utf-8'))
    shared = prof.get('shared', {}).get('stringArray')
    totals = defaultdict(float)
    for th in prof['threads']:
        strings = th.get('stringArray', th.get('stringTable', shared))
        st, ft, fu = th['stackTable'], th['frameTable'], th['funcTable']
        sm = th['samples']
        weights = sm.get('weight') or [1] * len(sm['stack'])
        for s, w in zip(sm['stack'], weights):
            if s is None:
                continue
            names = []
            while s is not None:
                f = st['frame'][s]
                names.append(clean(strings[fu['name'][ft['func'][f]]]))
                s = st['prefix'][s]
            totals[';'.join(reversed(names))] += w
    emit(totals)


def trace_samples(path):
    doc = json.load(open(path, encoding='utf-8'))
    events = doc['traceEvents'] if isinstance(doc, dict) else doc
    nodes, parent, samples = {}, {}, []
    for e in events:
        if e.get('ph') != 'P' or e.get('name') != 'ProfileChunk':
            continue
        key = (e.get('pid'), e.get('id'))
        data = e.get('args', {}).get('data', {})
        cp = data.get('cpuProfile', {})
        for n in cp.get('nodes', []):
            nodes[key + (n['id'],)] = n
            if 'parent' in n:
                parent[key + (n['id'],)] = key + (n['parent'],)
            for c in n.get('children', []):
                parent[key + (c,)] = key + (n['id'],)
        for s in cp.get('samples', []):
            samples.append(key + (s,))
    totals = defaultdict(float)
    for s in samples:
        names = []
        while s in nodes:
            n = nodes[s]
            fn = n['callFrame']['functionName']
            if not (fn == '(root)' and s not in parent):
                names.append(clean(fn or '(anonymous)'))
            if s not in parent:
                break
            s = parent[s]
        totals[';'.join(reversed(names))] += 1
    emit(totals)


{'trace-samples': trace_samples, 'cpuprofile': cpuprofile, 'firefox-processed': firefox_processed}[sys.argv[1]](sys.argv[2])
