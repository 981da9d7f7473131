"""The Qt user interface: the only package of fieldapp that imports PySide6 or pyqtgraph."""
