"""The version of the Python distributions built from this repository's protocol side.

``echoridge-protocol``, ``echoridge-rules`` and ``echoridge-client`` (the SDK) are released
together under one version, ``MAJOR.MINOR.PATCH``: MAJOR is the protocol's version (``2`` for
``echoridge.v2``: ``PROTOCOL``), MINOR counts additions a v2 peer may ignore (new optional
fields, message types, features: SPEC.md §8), PATCH fixes.  Each of the three requires the
others at exactly this version, and the server (``echo-ridge``) requires all three at it;
``tests/packaging`` checks that the pyproject files agree with this constant.
"""

from __future__ import annotations

__version__ = "2.0.0"
