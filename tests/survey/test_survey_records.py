"""fieldapp.survey.validation: one parent map, and records never changed in place.

``validate`` returns a corrected copy (``dataclasses.replace``) when a field is coerced and
the record itself when nothing is; the visit commits and returns the validated copy.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from fieldapp.survey import InvalidValue, Layer, TreeStatus, Visit
from fieldapp.survey.features import Note, Tree
from fieldapp.survey.readings import CaliperLike, ShotLike, reading_id
from fieldapp.survey.validation import PARENTS, ParentRef, validate

T = datetime(2024, 6, 3, 15, 0, tzinfo=UTC)
UUID = "00000000-0000-4000-8000-000000000001"


def note(**kw):
    base = dict(uuid=UUID, created_utc=T, modified_utc=T, created_by="crew@laptop", text="flag")
    base.update(kw)
    return Note(**base)


def test_one_parent_map_names_field_and_layer():
    assert PARENTS == {
        Layer.OHWM_POINT: ParentRef("line_uuid", Layer.OHWM_LINE),
        Layer.STATION: ParentRef("transect_uuid", Layer.TRANSECT),
        Layer.WALK_VERTEX: ParentRef("walk_uuid", Layer.WALK),
    }


def test_a_coerced_record_comes_back_as_a_copy_and_the_original_is_untouched():
    n = note(x=3, y=4.5)
    fixed = validate(n)
    assert fixed is not n and fixed == dataclasses.replace(n, x=3.0)
    assert type(fixed.x) is float and type(n.x) is int  # the frozen original is as it was
    assert validate(fixed) is fixed  # nothing to correct: the record itself


def test_a_missing_optional_text_becomes_empty_in_the_copy_only():
    t = Tree(uuid=UUID, created_utc=T, modified_utc=T, created_by="c", tag=1, x=0.0, y=0.0,
             dbh_in=12.0, species_code=None)
    fixed = validate(t)
    assert fixed.species_code == "" and t.species_code is None


def test_a_refused_record_raises_naming_the_field():
    with pytest.raises(InvalidValue) as e:
        validate(note(x=float("nan"), y=0.0))
    assert e.value.name == "x"


def test_the_visit_returns_and_holds_the_validated_copy():
    v = Visit.new("lot", crs="EPSG:32616", who="t")
    tree = v.add_tree(x=500_000.0, y=4_983_000.0, dbh_in=14)  # an int DBH
    assert type(tree.dbh_in) is float and tree.dbh_in == 14.0
    assert v.get(Layer.TREE, tree.uuid) is tree
    new = v.update_feature(Layer.TREE, tree.uuid, dbh_in=15, status="dead")
    assert (new.dbh_in, type(new.dbh_in), new.status) == (15.0, float, TreeStatus.DEAD)
    assert v.get(Layer.TREE, tree.uuid) is new and tree.dbh_in == 14.0


def test_readings_protocols_match_the_device_readings():
    from devices.readings import CaliperReading

    cal = CaliperReading(dbh_in=14.2, dbh_cm=36.1, species_number=3, species_label="Quercus rubra")
    assert isinstance(cal, CaliperLike) and not isinstance(cal, ShotLike)
    assert reading_id(cal) is None  # a device reading carries no id of its own
