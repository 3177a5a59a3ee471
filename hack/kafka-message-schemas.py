"""Condenses Apache Kafka's message schemas into the fixture the broker's schema tests read.

Usage: python3 hack/kafka-message-schemas.py KAFKA_GIT_DIR REF > test/fixtures/kafka-messages.json
(REF: the release the broker follows, e.g. 3.9.0). Comments are stripped and only the fields
the wire layout depends on are kept.
"""
import json, re, subprocess, sys
GIT = ['git', '--git-dir', sys.argv[1]]
REF = sys.argv[2]
DIR = 'clients/src/main/resources/common/message/'
KEEP = {'name', 'type', 'versions', 'nullableVersions', 'taggedVersions', 'tag', 'fields'}
names = subprocess.check_output(GIT + ['ls-tree', '--name-only', REF, DIR], text=True).split()
def strip(text):
    return re.sub(r'^\s*//.*$', '', re.sub(r'(?<=[,\[{}\]"\d])\s*//[^\n]*', '', text), flags=re.M)
def condense(field):
    out = {k: v for k, v in field.items() if k in KEEP and k != 'fields'}
    if 'fields' in field:
        out['fields'] = [condense(f) for f in field['fields']]
    return out
messages = {}
for path in names:
    if not path.endswith(('Request.json', 'Response.json')):
        continue
    raw = subprocess.check_output(GIT + ['show', f'{REF}:{path}'], text=True)
    doc = json.loads(strip(raw))
    if 'broker' not in doc.get('listeners', ['broker']) and doc['type'] == 'request':
        continue
    key = doc['apiKey']
    if key > 69:
        continue
    entry = messages.setdefault(str(key), {})
    entry[doc['type']] = {
        'name': doc['name'],
        'validVersions': doc['validVersions'],
        'flexibleVersions': doc['flexibleVersions'],
        'fields': [condense(f) for f in doc['fields']],
        'commonStructs': {s['name']: [condense(f) for f in s['fields']] for s in doc.get('commonStructs', [])},
    }
messages = {k: v for k, v in messages.items() if 'request' in v and 'response' in v}
json.dump({'source': f'apache/kafka {REF} {DIR}', 'messages': messages}, sys.stdout, indent=None, separators=(',', ':'))
