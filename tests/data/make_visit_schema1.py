"""Write tests/data/visit_schema1.gpkg with fieldapp at schema 1 (run from a schema-1 checkout)."""
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from shapely.geometry import LineString

from fieldapp.store import SCHEMA_VERSION, create_visit
from fieldapp.survey import Visit

assert SCHEMA_VERSION == 1
t = [datetime(2024, 6, 3, 14, 0, tzinfo=UTC)]
def clock():
    t[0] += timedelta(seconds=1)
    return t[0]
X0, Y0 = 500_000.0, 4_983_000.0
v = Visit.new("Schema 1 lot", crs="EPSG:32616", who="tester@laptop", clock=clock)
out = Path(sys.argv[1])
store = create_visit(out, v)
tr = v.add_transect(90.0, origin=(X0, Y0), label="T1")
for h, s in [(30, 4), (60, 18), (120, 5)]:
    v.add_station(tr.uuid, horizontal_ft=h, slope_pct=s)
v.add_line("drainageway_centreline", LineString([(X0, Y0 + 50), (X0 + 91.44, Y0 + 50)]), channel_width_ft=8.0,
           label="Creek")
v.add_line("swale", LineString([(X0, Y0 - 50), (X0 + 60.96, Y0 - 50)]), tributary_area_ac=6.0, label="S1")
for i in range(3):
    v.add_tree(x=X0 + 10 + i, y=Y0 + 10, dbh_in=12.0 + i)
store.close()
print(out, out.stat().st_size)
