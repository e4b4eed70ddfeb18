"""Print each frame of a flame graph SVG written by sfconv as "NAME WEIGHT",
from its <title> ("name (1,234 samples, 12.34%)"), for t-html.sh."""
import re
import sys
import xml.etree.ElementTree as ET

SVG = '{http://www.w3.org/2000/svg}'
for g in ET.parse(sys.argv[1]).iter(SVG + 'g'):
    if g.get('class') != 'f':
        continue
    m = re.match(r'(.*) \(([0-9,.]+) [^,]*, [0-9.]+%\)$', g.find(SVG + 'title').text, re.S)
    print(m.group(1), m.group(2).replace(',', ''))
