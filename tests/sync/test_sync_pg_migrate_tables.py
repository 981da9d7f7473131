"""A store schema change that adds tables, on the PostGIS office: the new tables get the audit
triggers of the others and every crew already granted the site gets its rights on them.

Mounted for real: a schema-1 site on PostgreSQL, crew role ``crew_*`` granted it
(``fieldapp sync --grant``) and its laptop checked out; the office's own laptop opens its copy
for recording (the store migrates it, adding ``stake_point``, ``photo``, ``device_reading``) and
syncs, which migrates the office. The crew then flags a stake point (a row of a new table) and
syncs it as itself; the office edits that row in QGIS (a plain UPDATE as the office role) and the
edit is in the site's audit table.
"""

from __future__ import annotations

import contextlib
import shutil
import uuid

import psycopg
from psycopg import sql
from shapely.geometry import LineString

from fieldapp.store import open_visit
from fieldapp.store import schema as store_schema
from fieldapp.survey import Layer
from fieldapp.sync import PostgisOffice, checkout, sync
from fieldapp.sync.cli import main as cli_main
from fieldapp.sync.pgedits import EDITS_TABLE
from tests.sync.test_sync_schema import SITE, V1


def crew(pg_url: str) -> tuple[str, str]:
    role = f"crew_{uuid.uuid4().hex[:8]}"
    with contextlib.closing(psycopg.connect(pg_url)) as conn, conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
    url = pg_url.replace("postgres@", f"{role}@", 1)
    assert f"{role}@" in url
    return role, url


def flag_a_stake_point(visit, who: str) -> str:
    from fieldapp.survey.stake import Target, guide
    from tests.store.test_store import Fix

    with open_visit(visit, who=who) as store:
        v = store.visit
        tree = next(iter(v.features(Layer.TREE)))
        lon, lat = v.frame.to_lonlat(tree.x, tree.y)
        fx, fy = v.frame.to_ft(tree.x), v.frame.to_ft(tree.y)
        line = Target("bank_line", "Bank line", LineString([(fx - 0.2, fy - 50), (fx - 0.2, fy + 50)]))
        sp = v.add_stake_point(fix=Fix(float(lat), float(lon), quality=4), target=line,
                               guidance=guide(line, fx, fy, tolerance_ft=0.5))
        return str(sp.uuid)


def test_a_crew_syncs_a_row_of_a_table_a_migration_added_and_office_edits_to_it_are_audited(pg_url, tmp_path):
    office = PostgisOffice(pg_url, create=True)
    seed = tmp_path / "seed.gpkg"
    shutil.copyfile(V1, seed)
    assert sync(seed, office).office_seq == 1
    role, crew_url = crew(pg_url)
    assert cli_main(["--office", pg_url, "--grant", role, "--site", SITE]) == 0
    crew_office = PostgisOffice(crew_url)
    crew_copy = checkout(crew_office, SITE, tmp_path / "crew.gpkg")
    # the office's laptop migrates its copy (opened for recording) and migrates the office
    own = checkout(office, SITE, tmp_path / "own.gpkg")
    open_visit(own, who="office@gis").close()
    report = sync(own, office)
    assert report.schema_changes and office.schema(SITE).version == store_schema.SCHEMA_VERSION
    with contextlib.closing(psycopg.connect(pg_url)) as conn:
        views = {r[0] for r in conn.execute("SELECT table_name FROM information_schema.views"
                                            " WHERE table_schema = %s", (SITE,))}
    # the migration added ``photo``: the office got the GeoPackage's photo mappings with it
    assert {"tree_photo", "site_photo", "stake_point_photo"} <= views
    # the crew pulls the migration, flags a stake point (a row of a table the migration added), syncs
    sync(crew_copy, crew_office)
    sp_uuid = flag_a_stake_point(crew_copy, f"{role}@laptop-c")
    sent = sync(crew_copy, crew_office)
    assert sent.office_seq == report.office_seq + 1
    with contextlib.closing(psycopg.connect(pg_url)) as conn, conn:
        stake = sql.Identifier(SITE, "stake_point")
        assert conn.execute(sql.SQL("SELECT count(*) FROM {} WHERE uuid = %s").format(stake),
                            (sp_uuid,)).fetchone()[0] == 1
        # the office edits the crew's flag in QGIS: the edit is audited like any layer's
        conn.execute(sql.SQL("UPDATE {} SET notes = 'reflagged' WHERE uuid = %s").format(stake), (sp_uuid,))
    with contextlib.closing(psycopg.connect(pg_url)) as conn:
        audited = conn.execute(sql.SQL("SELECT layer, op, new_row->>'notes', edited_by FROM {}").format(
            sql.Identifier(SITE, EDITS_TABLE))).fetchall()
    assert audited == [("stake_point", "UPDATE", "reflagged", "postgres")]
