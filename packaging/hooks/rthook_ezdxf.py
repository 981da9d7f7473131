"""Runtime hook of the bundle: ezdxf uses its pure-Python modules.

The spec leaves ezdxf's optional Cython accelerators (``ezdxf.acc.*``) out to keep the bundle
small; ``EZDXF_DISABLE_C_EXT=1`` (which wins over ezdxf's config files) makes ezdxf choose its
Python twins at import (see ``ezdxf/acc/__init__.py``) instead of failing to import them.
"""

import os

os.environ["EZDXF_DISABLE_C_EXT"] = "1"  # overrides an ezdxf.ini, as a setting cannot bring them back
