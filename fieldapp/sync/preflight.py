"""The refusals a sync makes before it writes anything, on either side.

:func:`_preflight` runs before the laptop's state is written and before the office lock is
taken; :func:`_refuse_newer` (a store schema newer than this fieldapp knows) and
:func:`_no_such_site` (the laptop synced the site before, the office has no such site) are also
checked again under the lock (:mod:`fieldapp.sync.phases`); a checkout checks the schema
(:func:`_refuse_newer`) and refuses a missing site in its own words.
"""

from __future__ import annotations

from pathlib import Path

from fieldapp.sync import schemas
from fieldapp.sync.errors import InvalidOfficeData, LaptopStateError, NewerSchema
from fieldapp.sync.files import log_head, log_ids
from fieldapp.sync.laptop import LaptopState
from fieldapp.sync.offices import office_arg, shell_arg
from fieldapp.sync.officestore import OfficeStore, SiteSchema


def _no_such_site(office: OfficeStore, site_id: str, base_seq: int) -> InvalidOfficeData:
    """The refusal of a laptop that synced ``site_id`` before (up to ``base_seq``) with an
    office that has no such site: "wrong office folder?"."""
    return InvalidOfficeData(
        f"{office.describe()} has no site {site_id}, yet this visit is a laptop copy of that"
        f" site (synced up to seq {base_seq}): wrong office folder? Nothing was sent"
    )


def _preflight(visit: Path, state: LaptopState, office: OfficeStore, *, site_given: bool = True) -> None:
    """Refuse, before anything is written on either side, a sync that cannot succeed.

    - the office is not there (:meth:`OfficeStore.check_available`);
    - the visit's own sync log has entries but this laptop has no base copy of it (the file was
      copied without its ``.sync`` folder, or synced with another office): its edits cannot be
      told from what it received, and its log would collide with the office's;
    - the laptop has a base copy but the office has no such site (wrong office folder?);
    - the site was taken from the visit itself (not ``site_given``), the laptop has no base
      copy, yet the office has the site with changesets: the visit is a copy of another
      laptop's visit made before that one's first sync (its rows would collide with the
      office's; a first sync interrupted before its push leaves the site at seq 0, and goes
      on). A site named by the caller is another visit of that site, which merges in;
    - the office site, or this laptop's base copy of it, has a newer store schema than this
      fieldapp knows (:class:`NewerSchema`: "update fieldapp"), checked before an interrupted
      sync is resumed too.

    An interrupted sync (``pending/``) is left to :meth:`fieldapp.sync.phases._Sync.resume`.
    """
    office.check_available()
    site_schema = office.schema(state.site_id)
    _refuse_newer(office, state.site_id, site_schema, state.base if state.base.exists() else None)
    office.check_writable(state.site_id)
    if state.pending_json.exists():
        return
    logged = log_ids(visit)
    if logged and not state.base.exists():
        raise LaptopStateError(
            f"visit {visit.name} was synced before (its sync log has {len(logged)} changeset(s),"
            f" up to seq {max(logged.values())}) but its sync state {state.base} is missing: the"
            " file was copied without its .sync folder, or synced with another office. Nothing"
            " was sent. Make a fresh laptop copy from the office that has the site instead:"
            f" `fieldapp sync --office {office_arg(office)} --checkout {state.site_id} NEW.gpkg`"
        )
    if state.base.exists() and site_schema is None:
        raise _no_such_site(office, state.site_id, log_head(state.base))
    head = office.head(state.site_id) if not (state.base.exists() or site_given) else None
    if head:
        raise LaptopStateError(
            f"site {state.site_id} is already in {office.describe()} (up to seq {head}), but visit"
            f" {visit.name} has never synced with it: it is a copy of another laptop's visit, made"
            " before that one's first sync. Nothing was sent and nothing was changed. To send its"
            " records, bring them into a new laptop copy of the site and sync that:"
            f" `fieldapp sync --office {office_arg(office)} --adopt-copy {shell_arg(visit)}"
            f" {shell_arg(visit.with_name(visit.stem + '-office.gpkg'))}` ({visit.name} is left"
            " unchanged; a value differing from the office's becomes a conflict record)"
        )


def _newer_office_message(office: OfficeStore, site_id: str, version: int, app: int, done: str) -> str:
    return (
        f"this office site was written by a newer fieldapp (schema {version}); update fieldapp on"
        f" this laptop (it knows store schemas up to {app}). Site {site_id} in"
        f" {office.describe()}; {done}"
    )


def _refuse_newer(office: OfficeStore, site_id: str, site_schema: SiteSchema | None,
                  base: Path | None, *,
                  done: str = "nothing was synced: the visit, its sync state and the office are"
                              " unchanged") -> None:
    """Raise :class:`NewerSchema` when the office master (or this laptop's base copy) has a
    store schema above the newest this fieldapp knows. Reads only."""
    app = schemas.app_version()
    if site_schema is not None and site_schema.version is not None and site_schema.version > app:
        raise NewerSchema(_newer_office_message(office, site_id, site_schema.version, app, done))
    v_base = schemas.version_of(base) if base is not None else None
    if v_base is not None and v_base > app:
        raise NewerSchema(
            f"this laptop's copy of site {site_id} ({base}) was written by a newer fieldapp"
            f" (schema {v_base}); update fieldapp on this laptop (it knows store schemas up to"
            f" {app}). Nothing was synced"
        )
