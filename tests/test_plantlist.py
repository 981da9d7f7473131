"""Loading the plant list (issue 32): NWPL exports and any CSV, encodings, errors in field words."""

import pytest

from fieldapp.rules.plantlist import (
    SAMPLE_PATH,
    ColumnMapping,
    PlantListError,
    guess_mapping,
    load_plant_list,
    read_header,
)
from fieldapp.rules.wetland_form import determine

NWPL = ("Scientific Name,Authorship,Common Name,MW,NCNE\r\n"
        "Typha latifolia,L.,broad-leaf cat-tail,OBL,OBL\r\n"
        "Acer rubrum,L.,red maple,FAC,FAC\r\n"
        "Salix ×fragilis,L.,crack willow,,FAC\r\n"
        "Tilia americana,L.,American basswood,FACU,FACU\r\n")


def write(tmp_path, text, encoding="utf-8", name="list.csv"):
    p = tmp_path / name
    p.write_bytes(text.encode(encoding))
    return p


def test_nwpl_export_header_guess_and_load(tmp_path):
    p = write(tmp_path, NWPL)
    header = read_header(p)
    assert header == ["Scientific Name", "Authorship", "Common Name", "MW", "NCNE"]
    m = guess_mapping(header, "midwest")
    assert m == ColumnMapping("Scientific Name", "MW", "Common Name")
    pl = load_plant_list(p, m)
    # the willow has no Midwest rating: skipped, so it counts UPL there
    assert dict(pl.statuses) == {"Typha latifolia": "OBL", "Acer rubrum": "FAC", "Tilia americana": "FACU"}
    assert pl.skipped == 1 and pl.sample is False and pl.encoding == "utf-8"
    assert pl.common_names["Acer rubrum"] == "red maple"
    ncne = load_plant_list(p, guess_mapping(header, "northcentral-northeast"))
    assert ncne.statuses["Salix ×fragilis"] == "FAC"


@pytest.mark.parametrize("encoding,expected", [("utf-8-sig", "utf-8"), ("cp1252", "cp1252"), ("utf-8", "utf-8")])
def test_encodings_excel_writes(tmp_path, encoding, expected):
    p = write(tmp_path, NWPL, encoding)
    pl = load_plant_list(p, ColumnMapping("Scientific Name", "NCNE", "Common Name"))
    assert pl.encoding == expected and pl.statuses["Salix ×fragilis"] == "FAC"
    assert read_header(p)[0] == "Scientific Name"  # no BOM left on the first name


def test_semicolon_csv_and_any_column_names(tmp_path):
    p = write(tmp_path, "Art;Name;Einstufung\nTypha latifolia;cat-tail;obl\n")
    header = read_header(p)
    assert header == ["Art", "Name", "Einstufung"] and guess_mapping(header) is None  # the dialog asks
    pl = load_plant_list(p, ColumnMapping(scientific="Art", status="Einstufung", common="Name"))
    assert dict(pl.statuses) == {"Typha latifolia": "OBL"}


def test_unknown_status_names_row_and_species(tmp_path):
    p = write(tmp_path, NWPL.replace("FAC,FAC", "FAC+,FAC"))
    with pytest.raises(PlantListError, match=r"list.csv row 3: status 'FAC\+' of Acer rubrum is not one of"):
        load_plant_list(p, ColumnMapping("Scientific Name", "MW"))


def test_duplicate_with_different_statuses_names_both_rows(tmp_path):
    p = write(tmp_path, NWPL + "Acer rubrum,L.,red maple,FACW,FAC\r\n")
    with pytest.raises(PlantListError, match="Acer rubrum is listed twice with different statuses: FAC in row 3,"
                                             " FACW in row 6"):
        load_plant_list(p, ColumnMapping("Scientific Name", "MW"))
    # the same status twice is fine
    p = write(tmp_path, NWPL + "Acer rubrum,L.,red maple,FAC,FAC\r\n")
    assert load_plant_list(p, ColumnMapping("Scientific Name", "MW")).statuses["Acer rubrum"] == "FAC"


def test_missing_column_and_file(tmp_path):
    p = write(tmp_path, NWPL)
    with pytest.raises(PlantListError, match="no column 'Status' for the indicator status; the columns are"):
        load_plant_list(p, ColumnMapping("Scientific Name", "Status"))
    with pytest.raises(PlantListError, match="no such file"):
        read_header(tmp_path / "nope.csv")


def test_sample_is_marked_and_drives_the_contract_example():
    header = read_header(SAMPLE_PATH)
    pl = load_plant_list(SAMPLE_PATH, guess_mapping(header))
    assert pl.sample is True and "SAMPLE" in pl.notes[0]
    assert pl.statuses["Typha latifolia"] == "OBL" and pl.statuses["Acer rubrum"] == "FAC"
    assert pl.search("bur") == ["Quercus macrocarpa"] and pl.search("typha") == ["Typha latifolia"]
    d = determine({"plot": "DP-1", "region": "northcentral-northeast", "indicators": dict(pl.statuses),
                   "vegetation": {"tree": [{"species": "Acer rubrum", "cover": 40}],
                                  "herb": [{"species": "Typha latifolia", "cover": 60}]},
                   "hydrology": {"primary": ["A2"]}, "soil": {"indicators": ["F6"]}})
    assert d.prevalence_index == 1.8 and d.wetland is True
