"""The Qt-free app layer: what the window shows and does, without a widget.

ui (widgets) -> app -> survey / store / sync / checks -> rules, geo. Nothing here imports
PySide6 or pyqtgraph (``tests/test_layout.py``); where the app layer needs a dialog or the Qt
platform's name, the UI passes it in (the window's ``ask_*`` / ``platform_name`` methods).

- :mod:`fieldapp.app.visit` -- the open visit (:class:`~fieldapp.app.visit.VisitController`),
  opening, creating and switching visits.
- :mod:`fieldapp.app.overlays` -- the map's drawings in site feet.
- :mod:`fieldapp.app.config` -- the app settings (:class:`~fieldapp.app.config.AppConfig`).
- :mod:`fieldapp.app.session` -- the running devices (simulated, replayed or real).
- :mod:`fieldapp.app.paths` -- where visits, settings and the log live (local app data).
- :mod:`fieldapp.app.logfile` -- the log file, and what an uncaught exception leaves there.
- :mod:`fieldapp.app.wording`, :mod:`fieldapp.app.layerwords` -- words for the user.
"""
