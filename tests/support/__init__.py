"""What several test modules share (no tests here): each module is named for its role, and is
imported as ``tests.support.<module>``. Fixtures are not here: they live in the ``conftest.py``
of the folder whose tests use them."""
